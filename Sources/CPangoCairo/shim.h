#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>
