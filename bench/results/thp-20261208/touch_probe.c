#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/resource.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t gb=atof(argv[1])*(1<<30); int huge=atoi(argv[2]);
  struct rusage r0,r1; getrusage(RUSAGE_SELF,&r0);
  double t0=now();
  char*p=mmap(0,gb,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  if(huge) madvise(p,gb,MADV_HUGEPAGE);
  for(size_t i=0;i<gb;i+=4096)p[i]=1;
  double t1=now();
  memset(p,2,gb); double t2=now();
  getrusage(RUSAGE_SELF,&r1);
  printf("%s %.1fGB touch %.3f s  memset-after %.3f s  minflt %ld\n",huge?"huge":"4k  ",gb/1073741824.0,t1-t0,t2-t1,r1.ru_minflt-r0.ru_minflt);
  return 0;}
