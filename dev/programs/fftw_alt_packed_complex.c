#include <fftw3.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static size_t L,n,M,nf,d;
static double *X,*Y,*H,*H2,*r,*z,*w,*tw; static fftw_plan P,Pf,Pb;
static void s2h(const double*restrict zz,const double*restrict h,double*restrict ww){
  ww[0]=zz[0]*h[0]-zz[1]*h[1];
  #pragma omp simd
  for(size_t k=1;k<nf;k++){double a=zz[2*k],b=zz[2*k+1],hr=h[2*k],hi=h[2*k+1];double vr=a*hr-b*hi,vi=a*hi+b*hr;ww[k]=vr-vi;ww[L-k]=vr+vi;}}
static void h2o(const double*restrict W,double*restrict yy){
  #pragma omp simd
  for(size_t j=0;j<n;j++)yy[j]=W[2*j]-W[2*j+1];}
/* fused: U -> X -> Y = X H' -> V, in place on u (M complex); h' = H/(2L) */
static void fused(double complex*restrict u,const double complex*restrict h,const double complex*restrict t){
  { double complex U0=u[0]; double x0=2*(creal(U0)+cimag(U0)), xm=2*(creal(U0)-cimag(U0));
    double y0=x0*creal(h[0]), ym=xm*creal(h[M]); u[0]=(y0+ym)+I*(y0-ym); }
  size_t half=M/2;
  #pragma omp simd
  for(size_t k=1;k<=half;k++){size_t j=M-k;
    double complex A=u[k],B=conj(u[j]),wk=t[k],wj=-conj(wk);
    double complex Xk=(A+B)-I*wk*(A-B);
    double complex Xj=(u[j]+conj(u[k]))-I*wj*(u[j]-conj(u[k]));
    double complex Yk=Xk*h[k],Yj=Xj*h[j];
    double complex Vk=(Yk+conj(Yj))+I*(Yk-conj(Yj))*conj(wk);
    double complex Vj=(Yj+conj(Yk))+I*(Yj-conj(Yk))*conj(wj);
    u[k]=Vk;u[j]=Vj;}
}
int main(int argc,char**argv){int flags=atoi(argv[1])?FFTW_MEASURE:FFTW_ESTIMATE;
 for(int lg=10;lg<=20;lg++){n=1<<lg;L=2*n;M=L/2;nf=L/2+1;d=lg<=16?64:(64>>(lg-16));
  X=fftw_alloc_real(n*d);Y=fftw_alloc_real(n*d);H=fftw_alloc_real(2*nf*d);H2=fftw_alloc_real(2*nf*d);
  r=fftw_alloc_real(L+8);z=fftw_alloc_real(L+8);w=fftw_alloc_real(L+8);tw=fftw_alloc_real(M+8);
  P=fftw_plan_dft_r2c_1d(L,r,(fftw_complex*)z,flags);
  Pf=fftw_plan_dft_1d(M,(fftw_complex*)r,(fftw_complex*)z,FFTW_FORWARD,flags);
  Pb=fftw_plan_dft_1d(M,(fftw_complex*)z,(fftw_complex*)w,FFTW_BACKWARD,flags);
  for(size_t k=0;k<=M/2;k++){tw[2*k]=cos(-2*M_PI*k/L);tw[2*k+1]=sin(-2*M_PI*k/L);}
  for(size_t i=0;i<n*d;i++)X[i]=drand48()-.5;
  /* kernel spectra from random kernels */
  for(size_t c=0;c<d;c++){memset(r,0,(L+8)*8);for(size_t k=0;k<L;k++)if(k<n||k>L-n)r[k]=drand48()-.5;fftw_execute_dft_r2c(P,r,(fftw_complex*)z);
    for(size_t k=0;k<2*nf;k++){H[2*c*nf+k]=z[k]/L;H2[2*c*nf+k]=z[k]/(2.0*L);}}
  memset(r,0,(L+8)*8);
  double best[3]={1e9,1e9,1e9},err=0;
  for(int rep=0;rep<7;rep++)for(int v=0;v<3;v++){int it=0;double t0=now(),t1;do{
     for(size_t c=0;c<d;c++){const double*x=X+c*n;double*y=Y+c*n;
       if(v==0){memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);s2h(z,H+2*c*nf,r);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);h2o(z,y);}
       else if(v==1){memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft(Pf,(fftw_complex*)r,(fftw_complex*)z);fused((double complex*)z,(const double complex*)(H2+2*c*nf),(const double complex*)tw);fftw_execute_dft(Pb,(fftw_complex*)z,(fftw_complex*)w);memcpy(y,w,n*8);}
       else {memset(r+n,0,(L-n)*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);}
     }
     it++;t1=now();}while(t1-t0<0.03);double tt=(t1-t0)/it/d;if(tt<best[v])best[v]=tt;}
  /* accuracy: compare v0 and v1 for channel 0 */
  {double*y0=malloc(n*8);const double*x=X;memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);s2h(z,H,r);fftw_execute_dft_r2c(P,r,(fftw_complex*)z);h2o(z,y0);
   memcpy(r,x,n*8);memset(r+n,0,(L-n)*8);fftw_execute_dft(Pf,(fftw_complex*)r,(fftw_complex*)z);fused((double complex*)z,(const double complex*)H2,(const double complex*)tw);fftw_execute_dft(Pb,(fftw_complex*)z,(fftw_complex*)w);
   double num=0,den=0;for(size_t i=0;i<n;i++){num+=(w[i]-y0[i])*(w[i]-y0[i]);den+=y0[i]*y0[i];}err=sqrt(num/den);free(y0);}
  printf("n=2^%d floor=%.3gus hartley=%.3f packed=%.3f relerr=%.2g\n",lg,best[2]*1e6,best[0]/best[2],best[1]/best[2],err);fflush(stdout);
  fftw_destroy_plan(P);fftw_destroy_plan(Pf);fftw_destroy_plan(Pb);fftw_free(X);fftw_free(Y);fftw_free(H);fftw_free(H2);fftw_free(r);fftw_free(z);fftw_free(w);fftw_free(tw);}
}
