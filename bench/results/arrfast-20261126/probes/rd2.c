#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int fd; static char*buf; static long off, req; static int hash;
struct part{long from,to;};
static void* work(void*a){struct part*p=a; unsigned long long h=0;
  for(long at=p->from; at<p->to; at+=req){ long n=req<p->to-at?req:p->to-at; pread(fd,buf+at,n,off+at); if(hash) for(long x=0;x<n;x+=4096) h+=XXH3_64bits(buf+at+x,4096);} return (void*)h;}
int main(int argc,char**argv){
  // rd2 FILE OFFSET LEN REQ THREADS HASH
  off=atol(argv[2]); long len=atol(argv[3]); req=atol(argv[4]); int th=atoi(argv[5]); hash=atoi(argv[6]);
  fd=open(argv[1],O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  buf=malloc(len); memset(buf,1,len);
  double t0=now(); pthread_t tid[8]; struct part p[8];
  for(int i=0;i<th;i++){p[i].from=len/th*i; p[i].to=i==th-1?len:len/th*(i+1); pthread_create(&tid[i],0,work,&p[i]);}
  for(int i=0;i<th;i++) pthread_join(tid[i],0);
  double t=now()-t0; printf("req %ld th %d hash %d: %.1f ms %.0f MiB/s\n",req,th,hash,t*1e3,len/1048576.0/t); return 0;}
