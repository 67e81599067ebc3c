/* SPDX-License-Identifier: MIT */
/*
 * export.c - `lowtrace export DIR [--format chrome|perfetto] -o FILE`:
 * the trace as Chrome trace-event JSON (analysis/export.c) or as
 * Perfetto's protobuf trace format (analysis/perfetto.c), for
 * ui.perfetto.dev and chrome://tracing.
 */
#include "analysis/analysis.h"
#include "analysis/perfetto.h"
#include "analysis/span.h"
#include "cli/analysis_opts.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT "export"

static const char export_usage[] =
	"usage: lowtrace export DIR [--format chrome|perfetto] -o FILE\n"
	"                       [--anchor EVENT] [--span 'START..END']\n"
	"\n"
	"--format chrome (the default) writes the trace in DIR as Chrome\n"
	"trace-event JSON: a track per thread with its running slices, a\n"
	"track per CPU with what ran on it, and the anchor events (default\n"
	"demo:late; 'EVENT if CONDITION', `lowtrace help conditions`) as\n"
	"instants.\n"
	"--format perfetto writes Perfetto's protobuf trace format, streamed\n"
	"in constant memory and several times smaller: scheduling as\n"
	"Perfetto's own system traces (CPU tracks, thread states with their\n"
	"wakers), system calls and interrupts as slices, every other event\n"
	"on its thread's track with its fields, spans (--span, and pairs\n"
	"such as X__start/X__done) as slices, anchors in category \"anchor\".\n"
	"Open it in ui.perfetto.dev (docs/perfetto.md).  The file is written\n"
	"under a temporary name and renamed when complete.\n"
	"Scheduling comes from kernel events (record with -k sched --all).\n"
	"  -o FILE   output file (- for stdout)\n";

/* Writes the Perfetto export to outp through a temporary file beside it,
 * renamed over outp once whole. */
static int export_perfetto(const char *dir, const char *outp,
			   const struct lt_perfetto_opts *po)
{
	lt_reader_t *t;
	char *tmp = NULL;
	FILE *out = stdout;
	if (lt_cli_open_trace(EXPORT, dir, &t))
		return 1;
	if (strcmp(outp, "-") != 0) {
		int fd = -1;
		if (asprintf(&tmp, "%s.XXXXXX", outp) < 0)
			tmp = NULL;
		else
			fd = mkstemp(tmp);
		if (fd >= 0) {
			/* the mode open() gives a new file, not mkstemp's */
			mode_t um = umask(0);
			umask(um);
			fchmod(fd, 0666 & ~um);
		}
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			free(tmp);
			lt_reader_close(t);
			return lt_cli_error(EXPORT, "cannot write %s: %s", outp,
					    strerror(e));
		}
	}
	int ret = lt_export_perfetto(t, po, out);
	if (ret < 0 && ferror(out))
		lt_cli_error(EXPORT, "writing %s: %s",
			     out == stdout ? "stdout" : outp, strerror(errno));
	else if (ret < 0)
		lt_cli_error(EXPORT, "reading %s: %s", dir,
			     ret == -EIO || ret == -ENOMEM ?
				     strerror(-ret) :
				     lt_reader_error(t));
	/* a damaged packet skipped: the file holds the rest, exit 1 */
	int skipped = ret >= 0 && lt_cli_trace_skipped(EXPORT, t);
	if (out != stdout) {
		if (fclose(out) != 0 && ret >= 0) {
			ret = -errno;
			lt_cli_error(EXPORT, "writing %s: %s", outp,
				     strerror(errno));
		}
		if (ret >= 0 && rename(tmp, outp) != 0) {
			ret = -errno;
			lt_cli_error(EXPORT, "cannot rename %s to %s: %s", tmp,
				     outp, strerror(errno));
		}
		if (ret < 0)
			unlink(tmp);
		free(tmp);
	} else if (fflush(out) != 0 && ret >= 0) {
		ret = -EIO;
		lt_cli_error(EXPORT, "writing stdout: %s", strerror(errno));
	}
	lt_reader_close(t);
	return ret < 0 || skipped ? 1 : 0;
}

static int export_run(int argc, char **argv)
{
	struct lt_aopts o;
	struct lt_anchor a;
	struct lt_span_pair pair;

	if (lt_cli_wants_help(argc, argv)) {
		fputs(export_usage, stdout);
		return 0;
	}
	if (lt_aopts_parse(&o, EXPORT,
			   LT_AOPT_FORMAT | LT_AOPT_OUTPUT | LT_AOPT_ANCHOR |
				   LT_AOPT_SPAN,
			   argc, argv))
		return 1;
	int perfetto = strcmp(o.format, "perfetto") == 0;
	if (!perfetto && strcmp(o.format, "chrome") != 0)
		return lt_cli_error(EXPORT,
				    "unknown format '%s' (chrome, perfetto)",
				    o.format);
	if (!o.output)
		return lt_cli_error(EXPORT, "no output file (-o FILE)");
	if (lt_aopts_anchor(&o, EXPORT, &a))
		return 1;
	if (!perfetto) {
		if (o.span)
			return lt_cli_error(EXPORT,
					    "--span needs --format perfetto");
		return lt_cli_trace_to_file(EXPORT, o.dir, o.output, &a,
					    lt_export_chrome);
	}
	struct lt_perfetto_opts po = { .anchor = &a };
	if (o.span) {
		char err[512];
		if (lt_span_parse(o.span, &pair, err, sizeof(err)) != 0)
			return lt_cli_error(EXPORT, "--span: %s", err);
		po.span = &pair;
	}
	return export_perfetto(o.dir, o.output, &po);
}

LT_CLI_VERB(export_verb, .name = EXPORT,
	    .summary = "write a trace as Chrome JSON or Perfetto protobuf",
	    .usage = export_usage, .run = export_run)
