// Everything in this target is built with the package's CommandLine trait only (on by default;
// an app's `traits: []` turns it off). Without it the target says so, once, instead of failing on
// missing modules.
#if !CommandLine
#error("ImgCacheCurl (the libcurl transport) needs imgcache's CommandLine trait, which is off: an app takes the ImgCache and ImgCacheURLSession products, which need no trait")
#endif
