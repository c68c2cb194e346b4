#pragma once
// What a sanitizer build (SHMTRAIN_SANITIZE, tools/sanitize.sh) needs to know about itself.
//
// SHMTRAIN_TSAN is 1 under ThreadSanitizer (gcc defines __SANITIZE_THREAD__, clang answers
// __has_feature(thread_sanitizer)), else 0.
#if defined(__SANITIZE_THREAD__)
#define SHMTRAIN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHMTRAIN_TSAN 1
#endif
#endif
#ifndef SHMTRAIN_TSAN
#define SHMTRAIN_TSAN 0
#endif
