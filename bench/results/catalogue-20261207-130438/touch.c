#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){ size_t mb=atol(v[1]); size_t n=mb<<20;
 char*p=mmap(0,n,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
 double t0=now(); for(size_t i=0;i<n;i+=4096) p[i]=1; double t=now()-t0;
 printf("%6zu MiB: %.3f s, %.2f us/page\n",mb,t,t*1e6/(n/4096)); }
