#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  // rd FILE OFFSET LEN REQ [iovlen]
  const char*p=argv[1]; long off=atol(argv[2]), len=atol(argv[3]), req=atol(argv[4]); long iovl=argc>5?atol(argv[5]):0;
  int fd=open(p,O_RDONLY); if(!getenv("NODROP")){fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);}
  char*buf=malloc(2*len); memset(buf,1,2*len);
  struct iovec*iov=malloc(sizeof(struct iovec)*1024);
  double t0=now();
  for(long at=0; at<len; at+=req){ long n=req<len-at?req:len-at;
    if(iovl){ int k=0; for(long x=0;x<n;x+=iovl){iov[k].iov_base=buf+(getenv("STRIDE")?2*(at+x):at+x); iov[k].iov_len=iovl; k++;} preadv(fd,iov,k,off+at);} 
    else pread(fd,buf+at,n,off+at);}
  double t=now()-t0; printf("req %ld iov %ld: %.1f ms %.0f MiB/s\n",req,iovl,t*1e3,len/1048576.0/t); return 0;}
