/* SPDX-License-Identifier: MIT */
/*
 * report.h - `lowtrace report`: the trace as one self-contained HTML page
 * (report.c writes the data, report_page.c holds the page and its script).
 */
#ifndef LT_ANALYSIS_REPORT_H
#define LT_ANALYSIS_REPORT_H

#include "analysis/analysis.h"

#include <stdio.h>

/* Most anchors given an explanation in the page (the worst ones). */
#define LT_REPORT_EXPLAIN_MAX 500

/* The page's markup before the data, and the script after it. */
extern const char lt_report_page_head[];
extern const char lt_report_page_tail[];

/*
 * Writes the page for t to out: reads t once through the model, then
 * (rewound) once more for the latency explanations of the anchors.
 * 0 or -errno (the reader's error: lt_reader_error()).
 */
int lt_report_html(lt_reader_t *t, const struct lt_anchor *anchor, FILE *out);

#endif
