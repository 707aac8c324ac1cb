#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void evict(const char*p){int fd=open(p,O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED); close(fd);}
int main(int argc,char**argv){ // twice FILE OFF LEN N
  long off=atol(argv[2]), len=atol(argv[3]); int n=atoi(argv[4]);
  char*buf=malloc(len);
  for(int i=0;i<n;i++){ memset(buf,1,len); evict(argv[1]); int fd=open(argv[1],O_RDONLY); double t0=now(); pread(fd,buf,len,off); double t=now()-t0; close(fd); printf("read %d: %.0f MiB/s\n",i+1,len/1048576.0/t);} return 0;}
