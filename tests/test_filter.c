/* SPDX-License-Identifier: MIT */
/*
 * test_filter.c - event filters: parsing, the messages of bad filters,
 * evaluation of every field type and operator over real payloads,
 * precedence, and the tracing path with and without a filter.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>

#include "format/metadata.h"
#include "format/walk.h"
#include "probe/filter.h"
#include "ring/ring_consume.h"
#include "probe/probe.h"

LT_ENUM(ft, state,
	LT_ENUM_VALUE("IDLE", 0) LT_ENUM_VALUE("BUSY", 1)
		LT_ENUM_RANGE("ERR", 10, 19))

/* Every comparable type, a string in the middle and fields after it. */
LT_EVENT(ft, all, LT_INFO,
	 LT_ARGS(int8_t, s8, uint16_t, u16, int32_t, s32, uint64_t, u64,
		 int64_t, s64, int, st, float, f, double, d, const char *, name,
		 const char *, tag),
	 LT_FIELDS(LT_FIELD_INT(s8, s8) LT_FIELD_HEX(u16, u16) LT_FIELD_INT(
		 s32, s32) LT_FIELD_INT(u64, u64) LT_FIELD_INT(s64, s64)
			   LT_FIELD_ENUM(ft, state, st, st) LT_FIELD_FLOAT(f, f)
				   LT_FIELD_STRING(name, name)
					   LT_FIELD_FLOAT(d, d)
						   LT_FIELD_CHARS(tag, tag, 8)))

static const int32_t arr_data[2] = { 1, 2 };
LT_EVENT(ft, arr, LT_INFO, LT_ARGS(int, x),
	 LT_FIELDS(LT_FIELD_INT(x, x) LT_FIELD_ARRAY(a, arr_data, 2)
			   LT_FIELD_SEQUENCE(q, arr_data, x)))

struct payload {
	char buf[LT_EVENT_MAX];
	uint32_t len;
};

/* The payload ft:all's probe would write. */
static struct payload make(int8_t s8, uint16_t u16, int32_t s32, uint64_t u64,
			   int64_t s64, int st, float f, double d,
			   const char *name, const char *tag)
{
	struct payload p;
	struct lt__writer w = { p.buf, 0, sizeof(p.buf), 0 };
	lt__put(&w, &s8, 1);
	lt__put(&w, &u16, 2);
	lt__put(&w, &s32, 4);
	lt__put(&w, &u64, 8);
	lt__put(&w, &s64, 8);
	lt__put(&w, &st, sizeof(st));
	lt__put(&w, &f, 4);
	lt__put_string(&w, name);
	lt__put(&w, &d, 8);
	lt__put_chars(&w, tag, 8);
	p.len = w.off;
	return p;
}

static const struct lt_field_desc *all_fields(uint32_t *n)
{
	const struct lt_field_desc *f = lt__ev_ft__all.fields();
	*n = 0;
	while (f[*n].name)
		(*n)++;
	return f;
}

static struct lt_filter *compile_ok(const char *text)
{
	uint32_t n;
	const struct lt_field_desc *fd = all_fields(&n);
	struct lt_filter *f = NULL;
	char err[512];
	int rc = lt_filter_compile(text, "ft:all", fd, n, &f, err, sizeof(err));
	if (rc)
		LT_FAIL("'%s' did not compile: %s", text, err);
	return f;
}

static int matches(const char *text, const struct payload *p)
{
	struct lt_filter *f = compile_ok(text);
	int m = lt_filter_match(f, p->buf, p->len);
	lt_filter_free(f);
	return m;
}

static struct payload sample(void)
{
	return make(-5, 0xbeef, -70000, 18000000000000000000ull, -3, 1, 1.5f,
		    -2.25, "render", "abc");
}

LT_TEST(test_filter_integers_every_operator)
{
	struct payload p = sample();
	LT_ASSERT(matches("s8 == -5", &p));
	LT_ASSERT(!matches("s8 != -5", &p));
	LT_ASSERT(matches("s8 < -4", &p));
	LT_ASSERT(matches("s8 <= -5", &p));
	LT_ASSERT(!matches("s8 > -5", &p));
	LT_ASSERT(matches("s8 >= -5", &p));
	LT_ASSERT(matches("u16 == 0xbeef", &p));
	LT_ASSERT(matches("u16 == 48879", &p));
	LT_ASSERT(matches("u16 > -1", &p)); /* unsigned against negative */
	LT_ASSERT(matches("s32 < -69999", &p));
	LT_ASSERT(matches("u64 == 18000000000000000000", &p));
	LT_ASSERT(matches("u64 > 9223372036854775807", &p));
	LT_ASSERT(matches("u64 > 0", &p));
	LT_ASSERT(matches("s64 == -3 && s64 > -9223372036854775808", &p));
	LT_ASSERT(matches("s64 < 0xffffffffffffffff", &p));
	LT_ASSERT(matches("s32 < -69999.5", &p)); /* integer against float */
}

LT_TEST(test_filter_floats_enums_strings_and_chars)
{
	struct payload p = sample();
	LT_ASSERT(matches("f == 1.5", &p));
	LT_ASSERT(matches("f > 1 && f < 2", &p));
	LT_ASSERT(matches("d <= -2.25 && d >= -2.25e0", &p));
	LT_ASSERT(!matches("d != -2.25", &p));
	LT_ASSERT(matches("st == 1", &p));
	LT_ASSERT(matches("st == \"BUSY\"", &p));
	LT_ASSERT(!matches("st == \"IDLE\"", &p));
	LT_ASSERT(matches("st != \"IDLE\" && st < \"ERR\"", &p));
	struct payload e = make(0, 0, 0, 0, 0, 12, 0, 0, "", "");
	LT_ASSERT(matches("st == \"ERR\"", &e));
	LT_ASSERT(
		matches("st > \"BUSY\" && st >= \"ERR\" && st <= \"ERR\"", &e));
	LT_ASSERT(matches("name == \"render\"", &p));
	LT_ASSERT(!matches("name == \"rend\"", &p));
	LT_ASSERT(matches("name == \"rend*\"", &p));
	LT_ASSERT(matches("name == \"*\"", &p));
	LT_ASSERT(!matches("name != \"ren*\"", &p));
	LT_ASSERT(matches("name > \"rend\" && name < \"rendez\"", &p));
	LT_ASSERT(matches("name == \"\"", &e));
	LT_ASSERT(matches("tag == \"abc\"", &p));
	LT_ASSERT(matches("tag == \"ab*\" && tag != \"abcd\"", &p));
	struct payload full = make(0, 0, 0, 0, 0, 0, 0, 0, "x", "12345678");
	LT_ASSERT(matches("tag == \"12345678\"", &full));
	struct payload q = make(0, 0, 0, 0, 0, 0, 0, 0, "say \"hi\"\\", "");
	LT_ASSERT(matches("name == \"say \\\"hi\\\"\\\\\"", &q));
	struct payload star = make(0, 0, 0, 0, 0, 0, 0, 0, "a*", "");
	LT_ASSERT(matches("name == \"a\\*\"", &star));
	LT_ASSERT(!matches("name == \"a\\*\"", &p));
}

LT_TEST(test_filter_fields_after_a_string_are_found)
{
	/* d and tag follow the variable-length name */
	struct payload a = make(1, 2, 3, 4, 5, 0, 0, 7.0, "", "x");
	struct payload b = make(1, 2, 3, 4, 5, 0, 0, 7.0,
				"a much longer name than before", "x");
	LT_ASSERT(matches("d == 7 && tag == \"x\"", &a));
	LT_ASSERT(matches("d == 7 && tag == \"x\"", &b));
	/* a payload cut short matches nothing */
	LT_ASSERT(!matches("d == 7", &(struct payload){ .len = 3 }));
	b.len -= 4;
	LT_ASSERT(!matches("tag == \"x\"", &b));
	LT_ASSERT(matches("s8 == 1", &b));
}

LT_TEST(test_filter_precedence_and_parentheses)
{
	struct payload p = sample(); /* s8 -5, st 1 */
	/* && binds tighter than || */
	LT_ASSERT(matches("s8 == 0 && st == 0 || st == 1", &p));
	LT_ASSERT(!matches("s8 == 0 && (st == 0 || st == 1)", &p));
	LT_ASSERT(matches("st == 1 || s8 == 0 && st == 0", &p));
	LT_ASSERT(matches("!s8 == 0", &p));
	LT_ASSERT(!matches("!(s8 == -5 || st == 7)", &p));
	LT_ASSERT(matches("!!(s8 == -5)", &p));
	LT_ASSERT(matches("((((s8==-5))))&&!(st!=1)", &p));
}

LT_TEST(test_filter_errors_name_the_field_and_list_the_fields)
{
	char deep[200] = "";
	for (int i = 0; i < 40; i++)
		strcat(deep, "(");
	const struct {
		const char *filter, *message;
	} bad[] = {
		{ "late_us > 5000", "unknown field 'late_us'" },
		{ "late_us > 5000",
		  "ft:all has fields: s8, u16, s32, u64, s64, "
		  "st, f, name, d, tag" },
		{ "name > 3", "field 'name' is a string" },
		{ "s8 == \"x\"", "field 's8' is an integer" },
		{ "f == \"x\"", "field 'f' is a float" },
		{ "st == \"HOT\"",
		  "no label \"HOT\" (labels: IDLE, BUSY, ERR)" },
		{ "name < \"a*\"", "== or != only" },
		{ "name == \"a*b\"", "only at the end" },
		{ "s8 = 1", "expected == != < <= > or >=" },
		{ "s8 == 1 &&", "expected a field name at the end" },
		{ "(s8 == 1", "expected ')'" },
		{ "s8 == 1 s8", "expected && || or the end" },
		{ "s8 == 12x", "bad number" },
		{ "s8 == 99999999999999999999", "out of range" },
		{ "name == \"open", "closing" },
		{ deep, "nested too deeply" },
	};
	uint32_t n;
	const struct lt_field_desc *fd = all_fields(&n);
	int failed = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lt_filter *f = NULL;
		char err[512] = "";
		int rc = lt_filter_compile(bad[i].filter, "ft:all", fd, n, &f,
					   err, sizeof(err));
		failed += !LT_CHECK_ROW(bad[i].filter, rc, -EINVAL, err,
					bad[i].message);
		if (rc == 0)
			lt_filter_free(f);
	}
	LT_ASSERT_ROWS(failed, sizeof(bad) / sizeof(bad[0]));
	LT_ASSERT_EQ(lt_filter_check_syntax("x == 1 && !(y < 2.5)", NULL, 0),
		     0);
	char err[200];
	LT_ASSERT_RESULT(lt_filter_check_syntax("x ==", err, sizeof(err)),
			 -EINVAL, err, "expected a number");
}

LT_TEST(test_filter_rejects_arrays_and_sequences)
{
	const struct lt_field_desc *fd = lt__ev_ft__arr.fields();
	struct lt_filter *f;
	char err[300];
	LT_ASSERT_RESULT(lt_filter_compile("a == 1", "ft:arr", fd, 3, &f, err,
					   sizeof(err)),
			 -EINVAL, err,
			 "field 'a' is an array: arrays and sequences");
	LT_ASSERT_RESULT(lt_filter_compile("q == 1", "ft:arr", fd, 3, &f, err,
					   sizeof(err)),
			 -EINVAL, err, "field 'q' is a sequence");
	LT_ASSERT_EQ(lt_filter_compile("x == 1", "ft:arr", fd, 3, &f, err,
				       sizeof(err)),
		     0);
	lt_filter_free(f);
}

/* ft:all's field called name, decoded from the payload arg as a reader
 * would give it to lt_filter_eval(). */
static int enum_label(const void *ctx, const char *label, size_t len,
		      int64_t *lo, int64_t *hi)
{
	const struct lt_enum_desc *e = ctx;
	for (uint32_t k = 0; k < e->n; k++) {
		if (strlen(e->entries[k].label) == len &&
		    memcmp(e->entries[k].label, label, len) == 0) {
			*lo = e->entries[k].lo;
			*hi = e->entries[k].hi;
			return 0;
		}
	}
	return -1;
}

static int decoded_field(void *arg, const char *name, struct lt_filter_value *v)
{
	const struct payload *p = arg;
	uint32_t n, off = 0;
	const struct lt_field_desc *fd = all_fields(&n);
	for (uint32_t i = 0; i < n; i++) {
		const struct lt_field_desc *f = &fd[i];
		const char *at = p->buf + off;
		off += f->type == LT_FT_STRING ? (uint32_t)strlen(at) + 1 :
		       f->type == LT_FT_CHARS  ? f->length :
						 f->size;
		if (strcmp(f->name, name) != 0)
			continue;
		v->type = f->type == LT_FT_CHARS ? LT_FT_STRING : f->type;
		v->is_signed = f->is_signed;
		if (f->type == LT_FT_STRING || f->type == LT_FT_CHARS) {
			v->str = at;
			v->len = strnlen(at, f->type == LT_FT_CHARS ?
						     f->length :
						     strlen(at));
		} else if (f->type == LT_FT_FLOAT) {
			float x;
			memcpy(&x, at, 4);
			if (f->size == 4)
				v->d = x;
			else
				memcpy(&v->d, at, 8);
		} else {
			uint64_t u = 0;
			memcpy(&u, at, f->size);
			unsigned shift = 64 - 8 * f->size;
			v->u = u;
			if (f->is_signed)
				v->i = (int64_t)(u << shift) >> shift;
			v->label = f->enumd ? enum_label : NULL;
			v->ctx = f->enumd;
		}
		return 0;
	}
	return -1;
}

static int evaluates(const char *text, const struct payload *p)
{
	struct lt_filter *f = NULL;
	char err[512];
	if (lt_filter_parse(text, &f, err, sizeof(err)))
		LT_FAIL("'%s' did not parse: %s", text, err);
	int m = lt_filter_eval(f, decoded_field, (void *)p);
	lt_filter_free(f);
	return m;
}

LT_TEST(test_filter_on_decoded_fields_agrees_with_the_payload_path)
{
	static const char *const texts[] = {
		"s8 == -5",
		"s8 < -4 && u16 == 0xbeef",
		"u16 > -1 || s32 > 0",
		"u64 == 18000000000000000000 && u64 > 9223372036854775807",
		"s64 == -3 && s64 > -9223372036854775808",
		"s64 < 0xffffffffffffffff",
		"s32 < -69999.5",
		"f > 1 && f < 2",
		"d <= -2.25 && d >= -2.25e0",
		"d != -2.25 || f == 1",
		"st == 1",
		"st == \"BUSY\"",
		"st != \"IDLE\" && st < \"ERR\"",
		"st > \"BUSY\" && st >= \"ERR\" && st <= \"ERR\"",
		"name == \"render\" || name == \"x\"",
		"name == \"rend*\" && !(name == \"rend\")",
		"name != \"ren*\"",
		"name > \"rend\" && name < \"rendez\"",
		"name == \"\"",
		"tag == \"abc\" || tag == \"12345678\"",
		"tag == \"ab*\" && tag != \"abcd\"",
		"s8 == 0 && st == 0 || st == 1",
		"!(s8 == -5 || st == 7)",
		"((((s8==-5))))&&!(st!=1)",
	};
	const struct payload ps[] = {
		sample(),
		make(0, 0, 0, 0, 0, 12, 0, 0, "", ""),
		make(0, 0, 0, 0, 0, 0, 0, 0, "x", "12345678"),
		make(127, 1, 2, 3, -4, 0, -1.0f, 2.5, "rendezvous", "ab"),
	};
	int failed = 0, rows = 0, hits = 0;
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			int want = matches(texts[t], &ps[k]);
			char what[200];
			snprintf(what, sizeof(what), "%s (payload %zu)",
				 texts[t], k);
			failed +=
				!LT_CHECK_ROW(what, evaluates(texts[t], &ps[k]),
					      want, "", "");
			hits += want;
			rows++;
		}
	}
	LT_ASSERT_ROWS(failed, rows);
	LT_ASSERT_CMP(hits, >, 10); /* the table matches, and not always */
	LT_ASSERT_CMP(hits, <, rows);
}

LT_TEST(test_filter_on_decoded_fields_that_do_not_fit_is_false)
{
	struct payload p = sample();
	/* a field the event lacks, or of another type: the whole condition
	 * is false, its negation too, as record leaves such an event out */
	LT_ASSERT(!evaluates("late_us > 5", &p));
	LT_ASSERT(!evaluates("!(late_us > 5)", &p));
	LT_ASSERT(!evaluates("s8 == -5 || late_us > 5", &p));
	LT_ASSERT(!evaluates("name > 3", &p));
	LT_ASSERT(!evaluates("!(s8 == \"x\")", &p));
	LT_ASSERT(!evaluates("st == \"HOT\"", &p));
	LT_ASSERT(evaluates("s8 == -5 || st == \"BUSY\"", &p));
	/* a "prefix*" with an order fits no field: refused at once */
	struct lt_filter *f = NULL;
	char err[200];
	LT_ASSERT_RESULT(lt_filter_parse("name < \"a*\"", &f, err, sizeof(err)),
			 -EINVAL, err, "== or != only");
	LT_ASSERT_RESULT(lt_filter_parse("s8 == 1 &&", &f, err, sizeof(err)),
			 -EINVAL, err, "expected a field name at the end");
	/* a program parsed by name is not one compiled for a payload */
	LT_ASSERT_EQ(lt_filter_parse("s8 == -5", &f, err, sizeof(err)), 0);
	struct lt_filter *g = compile_ok("s8 == -5");
	LT_ASSERT_EQ(lt_filter_eval(g, decoded_field, &p), 0);
	LT_ASSERT_EQ(lt_filter_or(&g, f), -EINVAL);
	lt_filter_free(f);
	lt_filter_free(g);
}

/* The tracing path: a filtered rule and an unfiltered one, to one ring
 * each, counted by walking what the consumer would see. */
static const struct lt_ctf_event *lookup_all(void *arg, uint32_t id)
{
	static struct lt_ctf_event e;
	(void)arg;
	e = (struct lt_ctf_event){ id, "ft:all", LT_INFO, NULL, 0, NULL };
	e.fields = all_fields(&e.nfields);
	return &e;
}

static void count_one(void *arg, const struct lt_ctf_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
}

static uint64_t ring_events(struct lt_ring *r)
{
	uint64_t n = 0;
	for (uint32_t c = 0; c < r->n_cpus; c++) {
		struct lt_ring_subbuf sb;
		lt_ring_flush(r, c);
		while (lt_ring_get_subbuf(r, c, &sb) == 0) {
			lt_ctf_walk_records(sb.data, sb.len, 0, lookup_all,
					    NULL, count_one, &n);
			lt_ring_put_subbuf(r, c);
		}
	}
	return n;
}

LT_TEST(test_filter_on_the_tracing_path)
{
	struct lt_ring_config cfg = { .mode = LT_RING_DISCARD,
				      .n_subbufs = 4,
				      .subbuf_size = 4096 };
	struct lt_ring *all, *some;
	char err[300];
	LT_ASSERT_EQ(lt_ring_create(&cfg, &all), 0);
	LT_ASSERT_EQ(lt_ring_create(&cfg, &some), 0);
	LT_ASSERT_EQ(lt_probe_enable(&cfg, "ft:all", LT_LOGLEVEL_ALL, all), 0);
	/* a filter that does not parse is refused at once */
	LT_ASSERT_RESULT(lt_probe_enable_filter(&cfg, "ft:*", LT_LOGLEVEL_ALL,
						some, "s8 >", err, sizeof(err)),
			 -EINVAL, err, "expected a number");
	/* ft:arr lacks s8: the rule does not select it */
	LT_ASSERT_EQ(lt_probe_enable_filter(&cfg, "ft:*", LT_LOGLEVEL_ALL, some,
					    "s8 > 10", err, sizeof(err)),
		     0);
	LT_ASSERT(!lt_trace_enabled(ft, arr));
	for (int i = 0; i < 40; i++)
		lt_trace(ft, all, (int8_t)i, 0, 0, 0, 0, 0, 0, 0, "n", "t");
	LT_ASSERT_EQ(ring_events(all), 40);
	LT_ASSERT_EQ(ring_events(some), 29);
	/* a second rule to the same ring: an event is recorded once, if
	 * either filter matches */
	LT_ASSERT_EQ(lt_probe_enable_filter(&cfg, "ft:all", LT_LOGLEVEL_ALL,
					    some, "s8 < 2 || s8 == 30", err,
					    sizeof(err)),
		     0);
	for (int i = 0; i < 40; i++)
		lt_trace(ft, all, (int8_t)i, 0, 0, 0, 0, 0, 0, 0, "n", "t");
	LT_ASSERT_EQ(ring_events(some), 31);
	/* a name it does not fit is refused, with the fields listed */
	LT_ASSERT_RESULT(
		lt_probe_enable_filter(&cfg, "ft:all", LT_LOGLEVEL_ALL, some,
				       "x > 1", err, sizeof(err)),
		-EINVAL, err, "unknown field 'x' (ft:all has fields: s8,");
	lt_probe_disable(&cfg, NULL);
	LT_ASSERT(!lt_trace_enabled(ft, all));
	lt_ring_destroy(all);
	lt_ring_destroy(some);
}

static int fired;

static void count_fire(void *arg)
{
	(*(int *)arg)++;
}

LT_TEST(test_filter_trigger_targets_fire_on_matching_events)
{
	char err[300];
	LT_ASSERT_EQ(lt_probe_enable_trigger(&fired, "ft:all", LT_LOGLEVEL_ALL,
					     "u16 == 7 && name == \"go\"",
					     count_fire, &fired, err,
					     sizeof(err)),
		     0);
	LT_ASSERT(lt_trace_enabled(ft, all));
	for (int i = 0; i < 10; i++)
		lt_trace(ft, all, 0, (uint16_t)i, 0, 0, 0, 0, 0, 0,
			 i & 1 ? "go" : "stay", "");
	LT_ASSERT_EQ(fired, 1);
	lt_probe_disable(&fired, NULL);
	LT_ASSERT(!lt_trace_enabled(ft, all));
}

LT_TEST(test_filter_or_combines_two_programs)
{
	struct payload p = sample(); /* s8 -5, name "render" */
	struct lt_filter *a = compile_ok("s8 == 1"),
			 *b = compile_ok("tag == \"abc\" && name == \"r*\"");
	LT_ASSERT(!lt_filter_match(a, p.buf, p.len));
	LT_ASSERT_EQ(lt_filter_or(&a, b), 0);
	LT_ASSERT(lt_filter_match(a, p.buf, p.len));
	lt_filter_free(a);
	lt_filter_free(b);
}

LT_TEST(test_filter_that_does_not_fit_a_later_event_is_refused)
{
	struct lt_ring_config cfg = { .mode = LT_RING_DISCARD,
				      .n_subbufs = 4,
				      .subbuf_size = 4096 };
	struct lt_ring *ring;
	char path[512], log[300], err[300];
	LT_ASSERT_EQ(lt_ring_create(&cfg, &ring), 0);
	/* dl:ping is not loaded yet: nothing to check it against */
	LT_ASSERT_EQ(lt_probe_enable_filter(&cfg, "dl:ping", LT_LOGLEVEL_ALL,
					    ring, "nope == 1", err,
					    sizeof(err)),
		     0);
	LT_ASSERT_EQ(lt_probe_enable_filter(&cfg, "dl:*", LT_LOGLEVEL_ALL, ring,
					    "n > 5", err, sizeof(err)),
		     0);
	snprintf(log, sizeof(log), "%s/stderr", lt_tmpdir("dlfilt"));
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), saved = dup(2);
	dup2(fd, 2);
	snprintf(path, sizeof(path), "%s/tests/libtp_dl.so",
		 lt_test_build_dir());
	void *h = dlopen(path, RTLD_NOW);
	dup2(saved, 2);
	if (!h)
		LT_FAIL("dlopen %s: %s", path, dlerror());
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "cat '%s'", log);
	char *out = lt_run(cmd, NULL);
	LT_ASSERT_CONTAINS(out, "event dl:ping is not recorded: its filter "
				"does not fit it: unknown field 'nope' "
				"(dl:ping has fields: n)");
	free(out);
	/* the rule whose filter fits still selects it */
	int (*ping)(int) = (int (*)(int))dlsym(h, "tp_dl_ping");
	LT_ASSERT(ping && ping(3) == 1 && ping(9) == 1);
	uint64_t n = 0;
	for (uint32_t c = 0; c < ring->n_cpus; c++) {
		struct lt_ring_subbuf sb;
		lt_ring_flush(ring, c);
		while (lt_ring_get_subbuf(ring, c, &sb) == 0) {
			/* 4-byte payloads: count the records by their size */
			n += (sb.len - LT_PACKET_HDR_SIZE) / 8;
			lt_ring_put_subbuf(ring, c);
		}
	}
	LT_ASSERT_EQ(n, 1);
	lt_probe_disable(&cfg, NULL);
	dlclose(h);
	lt_ring_destroy(ring);
}
