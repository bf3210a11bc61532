// libcurl for Swift, loaded at run time.
//
// libcurl (with OpenSSL, nghttp2, GnuTLS through LDAP, Kerberos and some twenty more libraries
// behind it on Debian) is opened with dlopen when the first CurlTransport is made, not linked:
// linked, loading them all cost every start of imgcache CPU and memory, `imgcache rewrite` and
// the AsyncHTTPClient transport included, and a binary copied to a machine without libcurl would
// not start at all. Only the types and constants of <curl/curl.h> are used from Swift directly;
// every function goes through the wrappers below, which also give the variadic ones
// (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt) fixed types Swift can call.
#ifndef IMGCACHE_CCURL_H
#define IMGCACHE_CCURL_H
// Linux only (see CCurl.c): empty elsewhere.
#if defined(__linux__)

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

/// Opens libcurl once (later calls return the first call's answer): NULL when it is ready,
/// otherwise why it is not (dlerror's message, or the symbol missing), in static storage.
const char *imgcache_curl_load(void);

/// Begins ``imgcache_curl_load`` on a detached thread of its own and returns at once: false when
/// no thread could be started (the load then happens at the first call). A call to
/// ``imgcache_curl_load`` made meanwhile waits for that load to end, and gives its answer.
_Bool imgcache_curl_start_loading(void);

/// Whether a libcurl.so.4 was found and opened, whatever ``imgcache_curl_load`` then made of it:
/// false when none is installed, true when the one installed cannot be used.
_Bool imgcache_curl_was_found(void);

/// A file in memory holding `bytes` (memfd_create, close-on-exec), or -1: read through
/// `/proc/self/fd/N`, it is gone with its descriptor, or with the process however it ends.
int imgcache_memory_file(const void *bytes, size_t count);

/// The CA bundle libcurl was built to use by default, or NULL.
const char *imgcache_curl_default_ca_file(void);

/// The hashed CA folder libcurl was built to use by default, or NULL.
const char *imgcache_curl_default_ca_folder(void);

CURLM *imgcache_curl_multi_init(void);
CURLMcode imgcache_curl_multi_cleanup(CURLM *multi);
CURLMcode imgcache_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode imgcache_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode imgcache_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode imgcache_curl_multi_perform(CURLM *multi, int *running);
CURLMsg *imgcache_curl_multi_info_read(CURLM *multi, int *left);
/// `curl_multi_poll` without extra descriptors; `ready` (may be NULL) is set to how many of libcurl's
/// own sockets are ready, the wake-up not counted.
CURLMcode imgcache_curl_multi_poll(CURLM *multi, int timeout_ms, int *ready);
CURLMcode imgcache_curl_multi_timeout(CURLM *multi, long *timeout_ms);
CURLMcode imgcache_curl_multi_wakeup(CURLM *multi);
const char *imgcache_curl_multi_strerror(CURLMcode code);

CURL *imgcache_curl_easy_init(void);
void imgcache_curl_easy_cleanup(CURL *handle);
void imgcache_curl_easy_reset(CURL *handle);
const char *imgcache_curl_easy_strerror(CURLcode code);
CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode imgcache_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode imgcache_curl_easy_setopt_write(CURL *handle, CURLoption option, curl_write_callback callback);
CURLcode imgcache_curl_easy_setopt_opensocket(CURL *handle, curl_opensocket_callback callback);
CURLcode imgcache_curl_easy_setopt_prereq(CURL *handle, curl_prereq_callback callback);
CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

struct curl_slist *imgcache_curl_slist_append(struct curl_slist *list, const char *string);
void imgcache_curl_slist_free_all(struct curl_slist *list);

/// The `result` of a finished transfer's message (a member of an anonymous union in CURLMsg).
static inline CURLcode imgcache_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif  // __linux__

#endif
