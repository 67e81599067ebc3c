/* SPDX-License-Identifier: MIT */
/*
 * topics.c - `lowtrace help patterns` and `lowtrace help conditions`: the
 * syntax of event patterns (probe/pattern.h) and of conditions
 * (probe/filter.h), which record, view, list and the analyses share, told
 * here once; the verbs' usage texts point here.
 */
#include "cli/cli.h"

static const char patterns_text[] =
	"Event patterns select events by name, the same way everywhere:\n"
	"record's -e, --trigger and --anchor, view's -e, the analyses'\n"
	"--anchor, record's -k (GROUP:NAME) and -u (PROVIDER:NAME),\n"
	"`list --kernel PATTERN` and `list --probes --functions PATTERN`.\n"
	"\n"
	"  *        any run of characters, none included (':' and '/' too)\n"
	"  ?        any one character\n"
	"  [set]    one character of set: [abc], ranges [a-z]; [!set] or\n"
	"           [^set] one not in it; a ']' first is in the set; a '['\n"
	"           without its ']' is itself\n"
	"  \\c       the character c itself: \\* \\? \\[ \\\\\n"
	"  else     the character itself\n"
	"\n"
	"The whole name must match: 'myapp:frame' is not 'myapp:frame_done'.\n"
	"Names are PROVIDER:EVENT (myapp:frame_done); lt_tracef's markers are\n"
	"lt_tracef:FILE:LINE ('lt_tracef:src/net.c:*').  -k and -u match the\n"
	"part before the first ':' and the part after it apart\n"
	"('sched:sched_[sw]*', 'python:function__*').  An anchor may instead\n"
	"give 'format:PATTERN', a pattern on the formats of markers\n"
	"('format:frame * late*').\n"
	"\n"
	"A pattern with none of * ? [ \\ names one event: record refuses a\n"
	"condition that does not fit that event rather than ignoring it.\n"
	"\n"
	"A pattern may be followed by ' if CONDITION', a condition on the\n"
	"event's fields (`lowtrace help conditions`).\n";

static const char conditions_text[] =
	"A condition keeps the events whose fields match it, 'PATTERN if\n"
	"CONDITION': in record's -e and --trigger (tested as the event is\n"
	"recorded, in the traced program), in view's -e and in the --anchor\n"
	"of record, analyze, report and export (tested as the trace is\n"
	"read).  One language for all:\n"
	"\n"
	"  condition  := and ( \"||\" and )*\n"
	"  and        := unary ( \"&&\" unary )*\n"
	"  unary      := \"!\" unary | \"(\" condition \")\" | FIELD OP CONSTANT\n"
	"  OP         := == != < <= > >=\n"
	"  CONSTANT   := integer (decimal, 0x hex, negative) | float\n"
	"               | \"string\"\n"
	"\n"
	"  'myapp:frame_done if late_us > 5000 && id != 3'\n"
	"  'net:rx if (port == 80 || port == 443) && !(len < 64)'\n"
	"  'myapp:req if path == \"/api/*\" || method == \"POST\"'\n"
	"\n"
	"Integer fields compare with numbers (with a float constant, as\n"
	"floats), float fields with numbers.  String and char-array fields\n"
	"compare with \"strings\" (byte order; \\\" and \\\\ escape; an\n"
	"unescaped * at the end matches any rest, with == and != only).\n"
	"Enum fields compare with integers or with a \"LABEL\" (== is within\n"
	"the label's range).  Arrays and sequences cannot be compared.  At\n"
	"most 511 bytes and 64 comparisons.\n"
	"\n"
	"An event whose fields the condition does not fit (a field it lacks,\n"
	"a string compared with a number) does not match it: record leaves\n"
	"it out (and refuses the condition when the pattern names that one\n"
	"event), view and the analyses skip it.  view's -e separates its\n"
	"patterns with ',': a condition there holds no ','.\n";

LT_CLI_VERB(patterns_topic, .name = "patterns",
	    .summary = "the event patterns of -e, -k, -u, --trigger, "
		       "--anchor, list",
	    .usage = patterns_text, .run = NULL)

LT_CLI_VERB(conditions_topic, .name = "conditions",
	    .summary = "the conditions of -e 'PATTERN if ...', --trigger, "
		       "--anchor",
	    .usage = conditions_text, .run = NULL)
