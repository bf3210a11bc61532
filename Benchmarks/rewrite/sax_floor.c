/* The floor for any rewriter built on libxml2: its HTML SAX parser over each page, with the parser
 * set up as imgcache's HTMLScanner sets it up (a memory parser context, the input pinned to UTF-8,
 * the same options, callbacks for the same events) but callbacks that do nothing. It reads each
 * file as imgcache does and writes nothing.
 *
 * usage: sax_floor PAGE...
 * build: cc -O2 -o sax_floor sax_floor.c $(pkg-config --cflags --libs libxml-2.0)
 */
#include <stdio.h>
#include <stdlib.h>

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>

static void started(void *user, const xmlChar *name, const xmlChar **attributes) {
    (void)user; (void)name; (void)attributes;
}
static void ended(void *user, const xmlChar *name) { (void)user; (void)name; }
static void comment(void *user, const xmlChar *text) { (void)user; (void)text; }

static char *read_file(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *bytes = malloc(*size > 0 ? (size_t)*size : 1);
    if (bytes && fread(bytes, 1, (size_t)*size, f) != (size_t)*size) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    return bytes;
}

int main(int argc, char **argv) {
    xmlInitParser();
    int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET
        | HTML_PARSE_NOIMPLIED | XML_PARSE_HUGE;
    for (int i = 1; i < argc; i++) {
        long size = 0;
        char *page = read_file(argv[i], &size);
        if (!page) {
            fprintf(stderr, "sax_floor: cannot read %s\n", argv[i]);
            return 1;
        }
        htmlParserCtxtPtr ctxt = size > 0 ? htmlCreateMemoryParserCtxt(page, (int)size) : NULL;
        if (ctxt) {
            xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8);
            ctxt->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
            htmlSAXHandler sax = {0};
            sax.startElement = started;
            sax.endElement = ended;
            sax.comment = comment;
            *ctxt->sax = sax;
            ctxt->userData = NULL;
            htmlCtxtUseOptions(ctxt, options);
            htmlParseDocument(ctxt);
            htmlFreeParserCtxt(ctxt);
        }
        free(page);
    }
    return 0;
}
