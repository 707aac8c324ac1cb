#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <xxh_x86dispatch.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){
  int fd=open(v[1],O_RDONLY); size_t n=lseek(fd,0,SEEK_END);
  char*buf=aligned_alloc(4096,n); memset(buf,0,n);
  size_t pieces[]={256<<10,1<<20,2<<20,4<<20,16<<20};
  for(int r=0;r<3;r++) for(int pi=0;pi<5;pi++){ size_t p=pieces[pi];
    for(int h=0;h<3;h++){ double t=now(); unsigned long long acc=0;
      for(size_t o=0;o<n;o+=p){ pread(fd,buf+o,p,o); if(h==1) acc+=XXH3_64bits(buf+o,p); if(h==2) for(size_t g=0;g<p;g+=4096) acc+=XXH3_64bits(buf+o+g,4096);}
      t=now()-t; printf("%s piece %5zuK %-6s %.2f ms\n", r==0?"":"", p>>10, h==0?"read":h==1?"xxh":"xxh4k", t*1e3); if(acc==42)puts("");}
  }
}
