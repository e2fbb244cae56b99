#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "skit/core.h"
#include "skit/tno.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double run(skit_tno_kind kind,int causal,int f32,size_t n,size_t d){
  skit_tno_options o; skit_tno_options_default(&o,kind); o.causality=causal?SKIT_CAUSAL:SKIT_BIDIRECTIONAL; o.precision=f32?SKIT_PRECISION_F32:SKIT_PRECISION_F64;
  skit_tno_plan *p=NULL; if(skit_tno_plan_create(&p,n,d,1,&o,NULL,0)){printf("create failed\n");return 0;}
  size_t T=n*d, P=skit_tno_plan_parameter_count(p);
  void *x=skit_malloc(T,8),*dy=skit_malloc(T,8),*dx=skit_malloc(T,8); double *dp=skit_malloc(P,8);
  for(size_t i=0;i<T;i++){ if(f32){((float*)x)[i]=rand()/(float)RAND_MAX-.5f;((float*)dy)[i]=rand()/(float)RAND_MAX-.5f;} else {((double*)x)[i]=rand()/(double)RAND_MAX-.5;((double*)dy)[i]=rand()/(double)RAND_MAX-.5;}}
  void *w=skit_malloc(skit_tno_plan_backward_workspace_bytes(p),1); double best=1e9;
  for(int r=0;r<7;r++){double t=now(); int s= f32? skit_tno_plan_backward_f32(p,x,dy,dx,dp,NULL,w): skit_tno_plan_backward(p,x,dy,dx,dp,NULL,w); t=now()-t; if(s){printf("err %d\n",s);} if(t<best)best=t;}
  skit_tno_plan_destroy(p); return best;}
int main(void){
  size_t shapes[][2]={{2048,512},{8192,128},{32768,64}};
  for(int s=0;s<3;s++) for(int c=0;c<2;c++){ double a=run(SKIT_TNO_SKI,c,0,shapes[s][0],shapes[s][1]), b=run(SKIT_TNO_SKI,c,1,shapes[s][0],shapes[s][1]);
    printf("ski %s n=%zu d=%zu backward f64 %.4f f32 %.4f ratio %.2f\n",c?"causal":"bidir",shapes[s][0],shapes[s][1],a,b,a/b);}
  return 0;}
