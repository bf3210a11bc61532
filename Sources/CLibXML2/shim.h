#ifndef IMGCACHE_CLIBXML2_SHIM_H
#define IMGCACHE_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// Debian builds libxml2 against the system ICU; its headers then include ICU's, whose
// declarations clash with the ICU that Foundation bundles ('UErrorCode' has different
// definitions). imgcache never uses libxml2's ICU converters, so hide them.
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#endif
