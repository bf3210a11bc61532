// libcurl for Swift: curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic C
// functions, which Swift does not import, so each kind of argument gets a fixed-type wrapper.
#ifndef IMGCACHE_CCURL_SHIM_H
#define IMGCACHE_CCURL_SHIM_H

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

static inline CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgcache_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgcache_curl_easy_setopt_write(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode imgcache_curl_easy_setopt_opensocket(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
static inline CURLcode imgcache_curl_easy_setopt_prereq(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}
static inline CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode imgcache_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode imgcache_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode imgcache_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
// The `result` of a finished transfer's message (a member of an anonymous union in CURLMsg).
static inline CURLcode imgcache_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

// The CA bundle libcurl was built to use by default, or NULL.
static inline const char *imgcache_curl_default_ca_file(void) {
    return curl_version_info(CURLVERSION_NOW)->cainfo;
}

#endif
