#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int fd; static char*buf; static long off, req=1048576, len; static atomic_long next;
static void chunk(long at,long n){pread(fd,buf+at,n,off+at); for(long x=0;x<n;x+=4096) XXH3_64bits(buf+at+x,4096);}
struct part{long from,to;};
static void* half(void*a){struct part*p=a; for(long at=p->from; at<p->to; at+=req) chunk(at, req<p->to-at?req:p->to-at); return 0;}
static void* inter(void*a){long at; while((at=atomic_fetch_add(&next,req))<len) chunk(at, req<len-at?req:len-at); return 0;}
int main(int argc,char**argv){
  // rd3 FILE OFFSET LEN MODE(one|win|inter)
  off=atol(argv[2]); len=atol(argv[3]); const char*mode=argv[4];
  fd=open(argv[1],O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  buf=malloc(len); memset(buf,1,len);
  double t0=now(); pthread_t a,b;
  if(!strcmp(mode,"one")){struct part p={0,len}; half(&p);}
  else if(!strcmp(mode,"win")){ long W=32<<20; for(long w=0; w<len; w+=W){ long e=w+W<len?w+W:len; struct part p1={w,w+(e-w)/2}, p2={w+(e-w)/2,e}; pthread_create(&b,0,half,&p2); half(&p1); pthread_join(b,0);} }
  else { next=0; pthread_create(&a,0,inter,0); pthread_create(&b,0,inter,0); pthread_join(a,0); pthread_join(b,0);} 
  double t=now()-t0; printf("%s %.1f ms\n",mode,t*1e3); return 0;}
