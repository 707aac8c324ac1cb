/* No C++ exception crosses the C API: a tag whose len no buffer can hold
 * (SIZE_MAX: std::length_error inside) or no memory can (2^50 bytes:
 * std::bad_alloc inside), given to each call that copies tags, comes back
 * as a code and a message naming the call, and the store goes on: a put
 * after it commits and reads back. Before the calls caught them, the first
 * such call ended the process (std::terminate). One process, no MPI. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"

static int failures = 0;
#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: %s failed (%s)\n", __FILE__, __LINE__, #cond, cairn_last_error()); \
      failures++;                                                                                \
    }                                                                                            \
  } while (0)

/* The last error names `fn` and holds `what`. */
static int Says(const char* fn, const char* what) {
  const char* e = cairn_last_error();
  return strstr(e, fn) != NULL && strstr(e, what) != NULL;
}

int main(void) {
  const char* base = getenv("TMPDIR");
  char dir[256], path[300], cmd[400];
  snprintf(dir, sizeof dir, "%s/cairn-capi-exc-XXXXXX", base ? base : "/tmp");
  if (!mkdtemp(dir)) return 2;
  snprintf(path, sizeof path, "%s/store", dir);

  cairn_options_t o;
  cairn_options_init(&o);
  cairn_store_t* s = NULL;
  CHECK(cairn_open_local(path, &o, &s) == CAIRN_OK && s);
  CHECK(cairn_put(s, "before", "1", 1, NULL, 0) == CAIRN_OK);

  static const char bytes[8] = "abcdefg";
  const size_t lens[2] = {SIZE_MAX, (size_t)1 << 50};
  const int codes[2] = {CAIRN_INVALID_ARGUMENT, CAIRN_IO_ERROR};
  const char* whats[2] = {"larger than any buffer", "out of memory"};
  for (int i = 0; i < 2; i++) {
    cairn_tag_t t;
    memset(&t, 0, sizeof t);
    t.name = "huge";
    t.type = CAIRN_TAG_BYTES;
    t.data = bytes;
    t.len = lens[i];
    printf("tag len %zu:\n", lens[i]);
    CHECK(cairn_put(s, "k", "v", 1, &t, 1) == codes[i] && Says("cairn_put", whats[i]));
    printf("  %s\n", cairn_last_error());
    CHECK(cairn_put_shared_tags(s, "k", "v", 1, &t, 1) == codes[i] && Says("cairn_put_shared_tags", whats[i]));
    CHECK(cairn_set_tag(s, "before", &t) == codes[i] && Says("cairn_set_tag", whats[i]));
    cairn_stream_t* w = NULL;
    CHECK(cairn_stream_open_write(s, "log", &t, 1, &w) == codes[i] && w == NULL &&
          Says("cairn_stream_open_write", whats[i]));
    uint64_t shape = 4;
    uint64_t start = 0;
    double data[4] = {1, 2, 3, 4};
    CHECK(cairn_put_array(s, "a", CAIRN_FLOAT64, 1, &shape, &start, &shape, data, CAIRN_ROW_MAJOR, &t, 1) ==
              codes[i] &&
          Says("cairn_put_array", whats[i]));
  }

  /* The store goes on: nothing of the refused calls is in the revision. */
  CHECK(cairn_put(s, "after", "2", 1, NULL, 0) == CAIRN_OK);
  uint64_t rev = 0;
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 1);
  CHECK(cairn_close(s) == CAIRN_OK);
  o.read_only = 1;
  s = NULL;
  CHECK(cairn_open_local(path, &o, &s) == CAIRN_OK && s);
  char buf[4];
  uint64_t size = 0;
  CHECK(cairn_get(s, "before", CAIRN_RANK_OWN, buf, sizeof buf, &size) == CAIRN_OK && size == 1 && buf[0] == '1');
  CHECK(cairn_get(s, "after", CAIRN_RANK_OWN, buf, sizeof buf, &size) == CAIRN_OK && size == 1 && buf[0] == '2');
  CHECK(cairn_get(s, "k", CAIRN_RANK_OWN, buf, sizeof buf, &size) == CAIRN_NOT_FOUND);
  cairn_tag_t* tags = NULL;
  size_t ntags = 9;
  CHECK(cairn_get_tags(s, "before", CAIRN_RANK_OWN, &tags, &ntags) == CAIRN_OK && ntags == 0);
  cairn_free(tags);
  CHECK(cairn_close(s) == CAIRN_OK);

  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  printf("capi_exception_test: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
