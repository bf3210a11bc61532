// The layers below the pipeline are modules of their own so that the build keeps their direction
// (a layer names only those below it); an app still imports one module, `ImgCache`, and sees
// their public API as this module's.
@_exported public import ImgCacheSupport
@_exported public import ImgCacheURLs
@_exported public import ImgCacheMarkup
@_exported public import ImgCacheStore
