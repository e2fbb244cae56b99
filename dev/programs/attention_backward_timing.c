#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "skit/core.h"
#include "skit/attention.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){
  size_t n=2048,d=64; double *q=malloc(n*d*8),*k=malloc(n*d*8),*v=malloc(n*d*8),*dy=malloc(n*d*8),*g=malloc(3*n*d*8);
  double *w=skit_malloc(skit_attention_exact_backward_workspace(n),8);
  for(size_t i=0;i<n*d;i++){q[i]=rand()/(double)RAND_MAX-.5;k[i]=rand()/(double)RAND_MAX-.5;v[i]=rand()/(double)RAND_MAX-.5;dy[i]=rand()/(double)RAND_MAX-.5;}
  for(int causal=0;causal<2;causal++){ skit_attention_mask m={NULL,causal}; double best=1e9;
    for(int r=0;r<7;r++){double t=now(); skit_attention_exact_backward_masked(n,d,d,q,n,k,n,v,n,0.125,&m,dy,n,g,n,g+n*d,n,g+2*n*d,n,w); t=now()-t; if(t<best)best=t;}
    printf("n=%zu d=%zu %s: %.4f s (best of 7)\n",n,d,causal?"causal":"bidirectional",best);}
  return 0;}
