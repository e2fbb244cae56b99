/* Causal SKI-TNO execute, Appendix B running sums (CUMSUM) against the
 * bracket-blocked sums (BLOCKED), best of many calls, at n = r/2..16r.
 * gcc -O2 -I lib -I build dev/programs/causal_ski_crossover.c \
 *     -o /tmp/ski_x -L build/.libs -lskit -lm
 * OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 LD_LIBRARY_PATH=build/.libs /tmp/ski_x D BATCH R */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "skit/core.h"
#include "skit/tno.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double run(int blocked,int f32,size_t n,size_t d,size_t b,size_t r){
  skit_tno_options o; skit_tno_options_default(&o,SKIT_TNO_SKI); o.causality=SKIT_CAUSAL; o.rank=r; if(o.taps>2*n-1)o.taps=2*n-1; o.causal_ski=blocked?SKIT_TNO_CAUSAL_BLOCKED:SKIT_TNO_CAUSAL_CUMSUM; o.precision=f32?SKIT_PRECISION_F32:SKIT_PRECISION_F64;
  skit_tno_plan *p=NULL; if(skit_tno_plan_create(&p,n,d,b,&o,NULL,0)){printf("create failed %s\n",skit_last_error());exit(1);}
  size_t T=n*d*b; void *x=skit_malloc(T,8),*y=skit_malloc(T,8); for(size_t i=0;i<T;i++) ((double*)x)[i]=0.001*(i%7);
  void *w=skit_malloc(skit_tno_plan_workspace_bytes(p),1); double best=1e9;
  int reps = 2000000/(T)+5;
  for(int k=0;k<reps;k++){double t=now(); if(f32) skit_tno_plan_execute_f32(p,x,y,w); else skit_tno_plan_execute(p,x,y,w); t=now()-t; if(t<best)best=t;}
  skit_tno_plan_destroy(p); skit_free(x); skit_free(y); skit_free(w); return best;}
int main(int argc,char**argv){
  size_t d=atoi(argv[1]), b=atoi(argv[2]), r=atoi(argv[3]);
  for(size_t n=r/2<2?2:r/2;n<=16*r;n*=2){ size_t rr=r>n?n:r; for(int f=0;f<2;f++){double c=run(0,f,n,d,b,rr), k=run(1,f,n,d,b,rr); printf("%s n=%zu r=%zu d=%zu b=%zu cumsum %.2e blocked %.2e cumsum/blocked %.2f\n",f?"f32":"f64",n,rr,d,b,c,k,c/k);}}
  return 0;}
