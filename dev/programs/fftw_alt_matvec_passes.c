#include <fftw3.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static size_t L, n, nf, d=64; static double *X,*Y,*H; static fftw_plan P, PI;
static double *buf[2],*zb[2],*wb[2];
static void s2h(const double*restrict z,const double*restrict h,double*restrict w){
  w[0]=z[0]*h[0]-z[1]*h[1];
  #pragma omp simd
  for(size_t k=1;k<nf;k++){double a=z[2*k],b=z[2*k+1],hr=h[2*k],hi=h[2*k+1];double vr=a*hr-b*hi,vi=a*hi+b*hr;w[k]=vr-vi;w[L-k]=vr+vi;}
}
static void s2hs(const double*restrict z,const double*restrict hr_,const double*restrict hi_,double*restrict w){
  w[0]=z[0]*hr_[0]-z[1]*hi_[0];
  #pragma omp simd
  for(size_t k=1;k<nf;k++){double a=z[2*k],b=z[2*k+1],hr=hr_[k],hi=hi_[k];double vr=a*hr-b*hi,vi=a*hi+b*hr;w[k]=vr-vi;w[L-k]=vr+vi;}
}
static void h2o(const double*restrict W,double*restrict y){
  #pragma omp simd
  for(size_t j=0;j<n;j++)y[j]=W[2*j]-W[2*j+1];}
static void mulc(double*restrict z,const double*restrict h){
  #pragma omp simd
  for(size_t k=0;k<nf;k++){double a=z[2*k],b=z[2*k+1],hr=h[2*k],hi=h[2*k+1];z[2*k]=a*hr-b*hi;z[2*k+1]=a*hi+b*hr;}}
static int variant;
static void run(void){
#pragma omp parallel for schedule(static)
  for(long c=0;c<(long)d;c++){int t=omp_get_thread_num();double*r=buf[t],*z=zb[t],*w=wb[t];
    const double*x=X+c*n;double*y=Y+c*n;const double*h=H+2*c*nf;
    if(variant==0){memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);s2h(z,h,r);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);h2o(z,y);}
    else if(variant==1){memcpy(r,x,n*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);s2h(z,h,w);fftw_execute_dft_r2c(P,w,(fftw_complex*)z);h2o(z,y);}
    else if(variant==2){memcpy(r,x,n*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);mulc(z,h);fftw_execute_dft_c2r(PI,(fftw_complex*)z,w);memcpy(y,w,n*8);}
    else if(variant==3){fftw_execute_dft_r2c(P,r,(fftw_complex*)z);}
    else if(variant==5){memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);}
    else if(variant==6){memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);s2hs(z,h,h+nf,r);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);h2o(z,y);}
    else if(variant==7){h2o(z,y);}
    else if(variant==8){memcpy(r,x,n*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);}
    else if(variant==4){fftw_execute_dft_r2c(P,r,(fftw_complex*)z);fftw_execute_dft_c2r(PI,(fftw_complex*)z,w);}
  }}
int main(int argc,char**argv){int flags=atoi(argv[1])?FFTW_MEASURE:FFTW_ESTIMATE;
 for(int lg=10;lg<=20;lg++){n=1<<lg;L=2*n;nf=L/2+1;d=lg<=16?64:(64>>(lg-16));
  X=fftw_alloc_real(n*d);Y=fftw_alloc_real(n*d);H=fftw_alloc_real(2*nf*d);
  for(size_t i=0;i<n*d;i++)X[i]=drand48();for(size_t i=0;i<2*nf*d;i++)H[i]=drand48();
  for(int t=0;t<2;t++){buf[t]=fftw_alloc_real(L+8);zb[t]=fftw_alloc_real(2*nf+8);wb[t]=fftw_alloc_real(L+8);memset(buf[t],0,(L+8)*8);}
  P=fftw_plan_dft_r2c_1d(L,buf[0],(fftw_complex*)zb[0],flags);PI=fftw_plan_dft_c2r_1d(L,(fftw_complex*)zb[0],wb[0],flags);
  for(int t=0;t<2;t++)memset(buf[t],0,(L+8)*8);
  double best[9];for(int i=0;i<9;i++)best[i]=1e9;
  for(int rep=0;rep<7;rep++)for(variant=0;variant<9;variant++){int it=0;double t0=now(),t1;do{run();it++;t1=now();}while(t1-t0<0.03);double v=(t1-t0)/it/d;if(v<best[variant])best[variant]=v;}
  printf("n=2^%d L=%zu d=%zu floor=%.3gus cur=%.3f sepbuf=%.3f c2r=%.3f pair=%.3f copy=%.3f split=%.3f h2o=%.3f cp+r2c=%.3f\n",lg,L,d,best[3]*1e6,best[0]/best[3],best[1]/best[3],best[2]/best[3],best[4]/best[3],best[5]/best[3],best[6]/best[3],best[7]/best[3],best[8]/best[3]);fflush(stdout);
  fftw_destroy_plan(P);fftw_destroy_plan(PI);fftw_free(X);fftw_free(Y);fftw_free(H);for(int t=0;t<2;t++){fftw_free(buf[t]);fftw_free(zb[t]);fftw_free(wb[t]);}
 }}
