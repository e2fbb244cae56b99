/* Best-of-REPS update and execute of one TNO-family plan: n d f32(0|1)
 * causal(0|1) kind(0 TNO, 1 FD, 2 SKI) REPS batch. Build:
 * gcc -O2 -I lib -I build dev/programs/tno_forward_timing.c \
 *     -o /tmp/t/fwdb -L build/.libs -lskit -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "skit/core.h"
#include "skit/tno.h"
#include "skit/fft.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){ skit_fft_set_time_limit(0.25);
  size_t n=atoi(argv[1]),d=atoi(argv[2]); int f32=atoi(argv[3]); int causal=atoi(argv[4]); int kind=argc>5?atoi(argv[5]):0; int reps=argc>6?atoi(argv[6]):20; size_t batch=argc>7?atoi(argv[7]):1;
  skit_tno_options o; skit_tno_options_default(&o,kind==0?SKIT_TNO_FFT:kind==1?SKIT_TNO_FD:SKIT_TNO_SKI); o.causality=causal?SKIT_CAUSAL:SKIT_BIDIRECTIONAL; o.precision=f32?SKIT_PRECISION_F32:SKIT_PRECISION_F64; o.planner=SKIT_PLANNER_MEASURE;
  skit_tno_plan *p=NULL; if(skit_tno_plan_create(&p,n,d,batch,&o,NULL,0)){printf("create failed %s\n",skit_last_error());return 1;}
  size_t T=n*d*batch; void *x=skit_malloc(T,8),*y=skit_malloc(T,8);
  for(size_t i=0;i<T;i++){ if(f32)((float*)x)[i]=rand()/(float)RAND_MAX-.5f; else ((double*)x)[i]=rand()/(double)RAND_MAX-.5;}
  void *w=skit_malloc(skit_tno_plan_workspace_bytes(p),1); double bu=1e9,be=1e9;
  for(int r=0;r<reps;r++){double t=now(); skit_tno_plan_update(p); double t1=now(); if(f32) skit_tno_plan_execute_f32(p,x,y,w); else skit_tno_plan_execute(p,x,y,w); double t2=now(); if(t1-t<bu)bu=t1-t; if(t2-t1<be)be=t2-t1;}
  printf("%s n=%zu d=%zu %s update %.5f execute %.5f forward %.5f\n",f32?"f32":"f64",n,d,causal?"causal":"bidir",bu,be,bu+be);
  return 0;}
