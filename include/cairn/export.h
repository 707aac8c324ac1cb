/* Symbol visibility of the cairn library (C and C++).
 *
 * libcairn is compiled with hidden visibility: only what the public headers
 * declare between CAIRN_API_BEGIN and CAIRN_API_END is exported from the
 * shared library; the internals (src/) are not. Valid C99 and C++. */
#ifndef CAIRN_EXPORT_H_
#define CAIRN_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define CAIRN_API_BEGIN _Pragma("GCC visibility push(default)")
#define CAIRN_API_END _Pragma("GCC visibility pop")
/* For implementation types a public header must name (Store::Rep, ...). */
#define CAIRN_HIDDEN __attribute__((visibility("hidden")))
#else
#define CAIRN_API_BEGIN
#define CAIRN_API_END
#define CAIRN_HIDDEN
#endif

#endif /* CAIRN_EXPORT_H_ */
