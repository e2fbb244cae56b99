#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double tm(fftw_plan p,double*in,double*out){double best=1e9;for(int r=0;r<5;r++){int it=0;double t0=now(),t1;do{fftw_execute_dft_r2c(p,in,(fftw_complex*)out);it++;t1=now();}while(t1-t0<0.02);if((t1-t0)/it<best)best=(t1-t0)/it;}return best;}
int main(int argc,char**argv){int flags=atoi(argv[1])?FFTW_MEASURE:FFTW_ESTIMATE;
 for(int lg=11;lg<=21;lg++){int L=1<<lg;printf("L=2^%d",lg);
  double*in=fftw_alloc_real((size_t)L*16),*out=fftw_alloc_real((size_t)(L+2)*16);
  fftw_plan p1=fftw_plan_dft_r2c_1d(L,in,(fftw_complex*)out,flags);
  for(size_t i=0;i<(size_t)L*16;i++)in[i]=drand48();
  double t1=tm(p1,in,out);printf(" single=%.3gus",t1*1e6);
  int Bs[]={2,4,8,16};
  for(int b=0;b<4;b++){int B=Bs[b];int nn=L;
   fftw_plan pm=fftw_plan_many_dft_r2c(1,&nn,B,in,NULL,B,1,(fftw_complex*)out,NULL,B,1,flags);
   for(size_t i=0;i<(size_t)L*16;i++)in[i]=drand48();
   double tb=tm(pm,in,out)/B;printf(" B%d=%.3f",B,tb/t1);fftw_destroy_plan(pm);}
  /* contiguous many (idist=L) */
  {int B=8,nn=L;fftw_plan pm=fftw_plan_many_dft_r2c(1,&nn,B,in,NULL,1,L,(fftw_complex*)out,NULL,1,L/2+1,flags);for(size_t i=0;i<(size_t)L*16;i++)in[i]=drand48();double tb=tm(pm,in,out)/B;printf(" contig8=%.3f",tb/t1);fftw_destroy_plan(pm);}
  printf("\n");fflush(stdout);fftw_destroy_plan(p1);fftw_free(in);fftw_free(out);}
}
