/* SPDX-License-Identifier: Apache-2.0 */
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
