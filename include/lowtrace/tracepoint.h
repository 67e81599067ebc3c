/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/tracepoint.h - defining and calling static tracepoints.
 *
 * A provider header defines each event once, with its argument types and
 * its fields:
 *
 *	#include <lowtrace/tracepoint.h>
 *
 *	LT_ENUM(myapp, state, LT_ENUM_VALUE("IDLE", 0) LT_ENUM_VALUE("BUSY", 1))
 *
 *	LT_EVENT(myapp, frame_done, LT_INFO,
 *		 LT_ARGS(uint32_t, id, int64_t, late_us, const char *, name),
 *		 LT_FIELDS(LT_FIELD_INT(id, id)
 *			   LT_FIELD_INT(late_us, late_us)
 *			   LT_FIELD_STRING(name, name)))
 *
 * and code calls it with lt_trace(myapp, frame_done, 7, 120, "render").
 * Any file may include the provider header; nothing has to be defined in
 * one of them only.  The call site costs one byte load and a branch not
 * taken while the event is disabled; the arguments are evaluated only
 * when it is enabled.  The compiler checks the arguments against LT_ARGS,
 * and each field's expression against its kind (an integer for
 * LT_FIELD_INT, a string for LT_FIELD_STRING, ...).  Field expressions are
 * evaluated once each per event; keep them free of side effects.
 *
 * Fields:
 *   LT_FIELD_INT(name, expr)           integer, size and sign of expr's type
 *   LT_FIELD_HEX(name, expr)           the same, displayed in hexadecimal
 *   LT_FIELD_ENUM(prov, enum, name, expr)  integer with the labels of LT_ENUM
 *   LT_FIELD_FLOAT(name, expr)         float or double
 *   LT_FIELD_STRING(name, expr)        NUL-terminated string (at most
 *                                      LT_STRING_MAX bytes are kept)
 *   LT_FIELD_ARRAY(name, ptr, count)   count integers, count a constant
 *   LT_FIELD_SEQUENCE(name, ptr, len)  len integers, len known at run time
 *   LT_FIELD_CHARS(name, ptr, count)   char array shown as text: up to
 *                                      count chars, to the first NUL
 *
 * An enabled event whose payload has a fixed size of 4 to 16 bytes (its
 * integers, enums, floats and fixed arrays) is written by a restartable
 * sequence compiled into the call site (tp_seq.h, x86_64 with glibc 2.35
 * or later): no call, about 250 bytes of cold code per call site.  Define
 * LT_NO_INLINE_SEQ before including this header to have such call sites
 * call the library instead (a nanosecond or two more per event).
 *
 * Events register themselves when the object that defines them is loaded
 * (the executable, a shared library, a library opened with dlopen) and
 * unregister when it is unloaded.  Link with -llowtrace.
 *
 * The same macros work in C (C11 with GNU extensions) and in C++11 or
 * later (g++, clang++), where a field's expression may be an enum class
 * (LT_FIELD_ENUM, LT_FIELD_INT) and a string must be a const char * or
 * char * (std::string::c_str()); an event may be defined inside a
 * namespace and called from it.
 */
#ifndef LOWTRACE_TRACEPOINT_H
#define LOWTRACE_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lowtrace/types.h>
#define LT__SEQ_INTERNALS 1
#include <lowtrace/tp_seq.h>

/*
 * What the field macros ask of an expression's type, in each language's
 * own terms: C11's _Static_assert, __typeof__ and _Generic; C++'s
 * static_assert, decltype and <type_traits>.  LT__TYPE(x) is x's type as
 * a variable holding its value has it (arrays and functions decayed).
 */
#ifdef __cplusplus
#include <type_traits>

namespace lt__cxx
{
template <typename T> using decay_t = typename std::decay<T>::type;
template <typename T, bool = std::is_enum<T>::value> struct arith {
	typedef T type;
};
template <typename T> struct arith<T, true> {
	typedef typename std::underlying_type<T>::type type;
};
template <typename T> constexpr bool is_int()
{
	return std::is_integral<T>::value || std::is_enum<T>::value;
}
template <typename T> constexpr bool is_signed()
{
	return std::is_signed<typename arith<T>::type>::value;
}
template <typename T> constexpr bool is_float()
{
	return std::is_same<T, float>::value || std::is_same<T, double>::value;
}
template <typename T> constexpr bool is_string()
{
	return std::is_same<T, char *>::value ||
	       std::is_same<T, const char *>::value;
}
template <typename T> T zero()
{
	return T();
}
} // namespace lt__cxx

#define LT__TYPE(x) lt__cxx::decay_t<decltype(x)>
#define LT__STATIC_ASSERT(c, msg) static_assert(c, msg)
#define LT__SIGNED(x) (lt__cxx::is_signed<LT__TYPE(x)>())
#define LT__IS_INT(x) (lt__cxx::is_int<LT__TYPE(x)>())
#define LT__IS_FLOAT(x) (lt__cxx::is_float<LT__TYPE(x)>())
#define LT__IS_STRING(x) (lt__cxx::is_string<LT__TYPE(x)>())
#define LT__ZERO(t, n) lt__cxx::zero<t>()
#else
#define LT__TYPE(x) __typeof__(x)
#define LT__STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#define LT__SIGNED(x) ((__typeof__(x))-1 < (__typeof__(x))1)
#define LT__IS_INT(x) ((__typeof__(x))1.5 == 1)
#define LT__IS_FLOAT(x)                                        \
	(__builtin_types_compatible_p(__typeof__(x), float) || \
	 __builtin_types_compatible_p(__typeof__(x), double))
#define LT__IS_STRING(x) \
	_Generic((x), char * : 1, const char * : 1, default : 0)
#define LT__ZERO(t, n) \
	(t)            \
	{              \
		0      \
	}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Serialises one event's payload on the caller's stack. */
struct lt__writer {
	char *p;
	uint32_t off, cap;
	int overflow;
};

static inline void lt__put(struct lt__writer *w, const void *v, size_t n)
{
	if (n > w->cap - w->off) {
		w->overflow = 1;
		return;
	}
	memcpy(w->p + w->off, v, n);
	w->off += (uint32_t)n;
}

static inline void lt__put_string(struct lt__writer *w, const char *s)
{
	size_t n = 0;
	if (!s)
		s = "(null)";
	while (n < LT_STRING_MAX - 1 && s[n])
		n++;
	lt__put(w, s, n);
	lt__put(w, "", 1);
}

/* Up to n chars of p, stopping at a NUL; the rest of the n bytes are 0. */
static inline void lt__put_chars(struct lt__writer *w, const char *p, size_t n)
{
	if (n > w->cap - w->off) {
		w->overflow = 1;
		return;
	}
	size_t i = 0;
	for (; i < n && p && p[i]; i++)
		w->p[w->off + i] = p[i];
	memset(w->p + w->off + i, 0, n - i);
	w->off += (uint32_t)n;
}

static inline void lt__put_seq(struct lt__writer *w, const void *p,
			       uint32_t len, size_t elem)
{
	lt__put(w, &len, 4);
	if (len)
		lt__put(w, p, (size_t)len * elem);
}

/* Preprocessor plumbing. */
#define LT__CAT(a, b) LT__CAT_(a, b)
#define LT__CAT_(a, b) a##b
#define LT__NARGS(...)                                                         \
	LT__NARGS_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, \
		   8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LT__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
		   _14, _15, _16, _17, _18, _19, _20, N, ...)              \
	N

/* LT_ARGS(t1, n1, t2, n2, ...): up to 10 typed arguments, as pairs. */
#define LT_ARGS(...) (__VA_ARGS__)
#define LT__MAP(op, ...) \
	LT__CAT(LT__MAP_, LT__NARGS(__VA_ARGS__))(op, __VA_ARGS__)
#define LT__MAP_2(op, t, n) op(t, n)
#define LT__MAP_4(op, t, n, ...) op(t, n) LT__MAP_2(op, __VA_ARGS__)
#define LT__MAP_6(op, t, n, ...) op(t, n) LT__MAP_4(op, __VA_ARGS__)
#define LT__MAP_8(op, t, n, ...) op(t, n) LT__MAP_6(op, __VA_ARGS__)
#define LT__MAP_10(op, t, n, ...) op(t, n) LT__MAP_8(op, __VA_ARGS__)
#define LT__MAP_12(op, t, n, ...) op(t, n) LT__MAP_10(op, __VA_ARGS__)
#define LT__MAP_14(op, t, n, ...) op(t, n) LT__MAP_12(op, __VA_ARGS__)
#define LT__MAP_16(op, t, n, ...) op(t, n) LT__MAP_14(op, __VA_ARGS__)
#define LT__MAP_18(op, t, n, ...) op(t, n) LT__MAP_16(op, __VA_ARGS__)
#define LT__MAP_20(op, t, n, ...) op(t, n) LT__MAP_18(op, __VA_ARGS__)
/* LT__LIST(op, t1, n1, t2, n2, ...): "op(t1, n1), op(t2, n2), ...", the
 * commas between, not after */
#define LT__LIST(op, ...) \
	LT__CAT(LT__LIST_, LT__NARGS(__VA_ARGS__))(op, __VA_ARGS__)
#define LT__LIST_2(op, t, n) op(t, n)
#define LT__LIST_4(op, t, n, ...) op(t, n), LT__LIST_2(op, __VA_ARGS__)
#define LT__LIST_6(op, t, n, ...) op(t, n), LT__LIST_4(op, __VA_ARGS__)
#define LT__LIST_8(op, t, n, ...) op(t, n), LT__LIST_6(op, __VA_ARGS__)
#define LT__LIST_10(op, t, n, ...) op(t, n), LT__LIST_8(op, __VA_ARGS__)
#define LT__LIST_12(op, t, n, ...) op(t, n), LT__LIST_10(op, __VA_ARGS__)
#define LT__LIST_14(op, t, n, ...) op(t, n), LT__LIST_12(op, __VA_ARGS__)
#define LT__LIST_16(op, t, n, ...) op(t, n), LT__LIST_14(op, __VA_ARGS__)
#define LT__LIST_18(op, t, n, ...) op(t, n), LT__LIST_16(op, __VA_ARGS__)
#define LT__LIST_20(op, t, n, ...) op(t, n), LT__LIST_18(op, __VA_ARGS__)
#define LT__PARAM(t, n) t n
#define LT__NAME(t, n) n
/* the parameters "t1 n1, ...", the arguments "n1, ...", and zeros */
#define LT__PARAMS(...) LT__LIST(LT__PARAM, __VA_ARGS__)
#define LT__NAMES(...) LT__LIST(LT__NAME, __VA_ARGS__)
#define LT__ZEROS(...) LT__LIST(LT__ZERO, __VA_ARGS__)
#define LT__VOID(t, n) (void)n;
#define LT__UNPAREN(...) __VA_ARGS__

/*
 * Fields are parenthesised tuples (KIND, ...), walked two ways.  The walk
 * pastes _END onto the macro left after the last tuple; LT__EMPTY() holds
 * back each tuple's expansion until after that paste, so that the commas
 * it produces do not split the paste's arguments.
 */
#define LT__EMPTY()
/* a paste of its own: the walk runs inside LT__CAT */
#define LT__KIND(a, b) LT__KIND_(a, b)
#define LT__KIND_(a, b) a##b
#define LT_FIELDS(...) __VA_ARGS__
#define LT_FIELD_INT(name, expr) (INT, name, expr, 10)
#define LT_FIELD_HEX(name, expr) (INT, name, expr, 16)
#define LT_FIELD_ENUM(prov, en, name, expr) \
	(ENUM, name, expr, &lt__enum_##prov##__##en)
#define LT_FIELD_FLOAT(name, expr) (FLOAT, name, expr)
#define LT_FIELD_STRING(name, expr) (STRING, name, expr)
#define LT_FIELD_ARRAY(name, ptr, count) (ARRAY, name, ptr, count)
#define LT_FIELD_SEQUENCE(name, ptr, len) (SEQ, name, ptr, len)
#define LT_FIELD_CHARS(name, ptr, count) (CHARS, name, ptr, count)

/* The field's description (a static initializer). */
#define LT__D_INT(name, expr, b) \
	{ #name, LT_FT_INT, sizeof(expr), LT__SIGNED(expr), b, 0, NULL },
#define LT__D_ENUM(name, expr, e) \
	{ #name, LT_FT_ENUM, sizeof(expr), LT__SIGNED(expr), 10, 0, e },
#define LT__D_FLOAT(name, expr) \
	{ #name, LT_FT_FLOAT, sizeof(expr), 1, 10, 0, NULL },
#define LT__D_STRING(name, expr) { #name, LT_FT_STRING, 1, 0, 10, 0, NULL },
#define LT__D_ARRAY(name, p, n)                                               \
	{ #name,	 LT_FT_ARRAY, sizeof((p)[0]), LT__SIGNED((p)[0]), 10, \
	  (uint32_t)(n), NULL },
#define LT__D_SEQ(name, p, n)       \
	{                           \
		#name,              \
		LT_FT_SEQUENCE,     \
		sizeof((p)[0]),     \
		LT__SIGNED((p)[0]), \
		10,                 \
		0,                  \
		NULL                \
	},
#define LT__D_CHARS(name, p, n) \
	{ #name, LT_FT_CHARS, 1, 1, 10, (uint32_t)(n), NULL },
#define LT__D(kind, ...) LT__KIND(LT__D_, kind)(__VA_ARGS__)
#define LT__DA(...) LT__D LT__EMPTY()(__VA_ARGS__) LT__DB
#define LT__DB(...) LT__D LT__EMPTY()(__VA_ARGS__) LT__DA
#define LT__DA_END
#define LT__DB_END
#define LT__DESCS(seq) LT__CAT(LT__DA seq, _END)

/* The field's serialisation (statements in the probe). */
#define LT__W_INT(name, expr, b)                                               \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT(expr), #name ": not an integer"); \
		LT__TYPE(expr) lt__v = (expr);                                 \
		lt__put(&lt__w, &lt__v, sizeof(lt__v));                        \
	}
#define LT__W_ENUM(name, expr, e) LT__W_INT(name, expr, 10)
#define LT__W_FLOAT(name, expr)                                     \
	{                                                           \
		LT__STATIC_ASSERT(LT__IS_FLOAT(expr),               \
				  #name ": not a float or double"); \
		LT__TYPE(expr) lt__v = (expr);                      \
		lt__put(&lt__w, &lt__v, sizeof(lt__v));             \
	}
#define LT__W_STRING(name, expr)                           \
	{                                                  \
		LT__STATIC_ASSERT(LT__IS_STRING(expr),     \
				  #name ": not a string"); \
		lt__put_string(&lt__w, (expr));            \
	}
#define LT__W_ARRAY(name, p, n)                                                \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT((p)[0]), #name ": not integers"); \
		lt__put(&lt__w, (p), sizeof((p)[0]) * (size_t)(n));            \
	}
#define LT__W_SEQ(name, p, n)                                                  \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT((p)[0]), #name ": not integers"); \
		lt__put_seq(&lt__w, (p), (uint32_t)(n), sizeof((p)[0]));       \
	}
#define LT__W_CHARS(name, p, n)                                              \
	{                                                                    \
		LT__STATIC_ASSERT(sizeof((p)[0]) == 1, #name ": not chars"); \
		lt__put_chars(&lt__w, (const char *)(p), (size_t)(n));       \
	}
#define LT__W(kind, ...) LT__KIND(LT__W_, kind)(__VA_ARGS__)
#define LT__WA(...) LT__W LT__EMPTY()(__VA_ARGS__) LT__WB
#define LT__WB(...) LT__W LT__EMPTY()(__VA_ARGS__) LT__WA
#define LT__WA_END
#define LT__WB_END
#define LT__WRITES(seq) LT__CAT(LT__WA seq, _END)

/* The field's size if fixed, else LT_EVENT_MAX (a sum in the probe). */
#define LT__S_INT(name, expr, b) +sizeof(expr)
#define LT__S_ENUM(name, expr, e) +sizeof(expr)
#define LT__S_FLOAT(name, expr) +sizeof(expr)
#define LT__S_STRING(name, expr) +LT_EVENT_MAX
#define LT__S_ARRAY(name, p, n) +sizeof((p)[0]) * (size_t)(n)
#define LT__S_SEQ(name, p, n) +LT_EVENT_MAX
#define LT__S_CHARS(name, p, n) +(size_t)(n)
#define LT__S(kind, ...) LT__KIND(LT__S_, kind)(__VA_ARGS__)
#define LT__SA(...) LT__S LT__EMPTY()(__VA_ARGS__) LT__SB
#define LT__SB(...) LT__S LT__EMPTY()(__VA_ARGS__) LT__SA
#define LT__SA_END
#define LT__SB_END
#define LT__SIZE(seq) LT__CAT(LT__SA seq, _END)

#define LT__SECTION __attribute__((section("lt_events"), used))

#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ)
#define LT__LAYOUT LT_SEQ_LAYOUT
/* a payload of 8-16 bytes: lo at 4, hi at the payload's last 8 bytes;
 * 4-7 bytes: the same with 4-byte words */
#define LT__EMIT_WORDS8(D, LO, HI, LEN)                    \
	LT__SEQ_EMIT(D, LO, HI, LEN, "mov %[lo], 4(%%r9)", \
		     "mov %[hi], -4(%%r9,%[len])", lt_probe_emit_words8)
#define LT__EMIT_WORDS4(D, LO, HI, LEN)                     \
	LT__SEQ_EMIT(D, LO, HI, LEN, "mov %k[lo], 4(%%r9)", \
		     "mov %k[hi], (%%r9,%[len])", lt_probe_emit_words4)
#else
#define LT__LAYOUT 0
#define LT__EMIT_WORDS8 lt_probe_emit_words8
#define LT__EMIT_WORDS4 lt_probe_emit_words4
#endif

/* A payload of FIXED bytes, 4 to 16, that WRITES serialises into lt__w:
 * in two words, with no buffer in memory, to the inline sequence of
 * tp_seq.h where there is one, else to the library (D its descriptor). */
#define LT__EMIT_FIXED(D, FIXED, WRITES)                                       \
	do {                                                                   \
		char lt__buf[16];                                              \
		struct lt__writer lt__w = { lt__buf, 0, 16, 0 };               \
		uint64_t lt__lo = 0, lt__hi = 0;                               \
		WRITES(void) lt__w;                                            \
		if ((FIXED) >= 8) {                                            \
			memcpy(&lt__lo, lt__buf, 8);                           \
			memcpy(&lt__hi, lt__buf + (FIXED)-8, 8);               \
			LT__EMIT_WORDS8(D, lt__lo, lt__hi, (uint32_t)(FIXED)); \
		} else {                                                       \
			uint32_t lt__x, lt__y;                                 \
			memcpy(&lt__x, lt__buf, 4);                            \
			memcpy(&lt__y, lt__buf + (FIXED)-4, 4);                \
			lt__lo = lt__x;                                        \
			lt__hi = lt__y;                                        \
			LT__EMIT_WORDS4(D, lt__lo, lt__hi, (uint32_t)(FIXED)); \
		}                                                              \
	} while (0)

#define LT__EVENT_COMMON(prov, ev, level)                               \
	static struct lt_event_desc lt__ev_##prov##__##ev               \
		__attribute__((unused)) = { 0,                          \
					    LT__LAYOUT,                 \
					    level,                      \
					    #prov,                      \
					    #ev,                        \
					    #prov ":" #ev,              \
					    lt__fields0_##prov##__##ev, \
					    0,                          \
					    NULL,                       \
					    NULL };                     \
	static struct lt_event_desc *const lt__evp_##prov##__##ev       \
		LT__SECTION = &lt__ev_##prov##__##ev;

/* An event with arguments.  A payload of 4 to 16 bytes of fixed size
 * goes in two registers, with no buffer in memory, to the inline
 * sequence of tp_seq.h where there is one, else to the library. */
#define LT_EVENT(prov, ev, level, args, fields)                               \
	__attribute__((unused)) static inline const struct lt_field_desc      \
		*lt__fields_##prov##__##ev(LT__PARAMS args)                   \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		static const struct lt_field_desc lt__f[] = { LT__DESCS(      \
			fields){ NULL, 0, 0, 0, 0, 0, NULL } };               \
		return lt__f;                                                 \
	}                                                                     \
	static const struct lt_field_desc *lt__fields0_##prov##__##ev(void)   \
	{                                                                     \
		return lt__fields_##prov##__##ev(LT__ZEROS args);             \
	}                                                                     \
	LT__EVENT_COMMON(prov, ev, level)                                     \
	/* a payload of variable size, or fixed outside 4-16 bytes: in a    \
	 * buffer on the stack, to the library */ \
	__attribute__((unused)) static void lt__probe_mem_##prov##__##ev(     \
		LT__PARAMS args)                                              \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		char lt__buf[LT_EVENT_MAX];                                   \
		struct lt__writer lt__w = { lt__buf, 0, sizeof(lt__buf), 0 }; \
		LT__WRITES(fields)                                            \
		lt_probe_emit(&lt__ev_##prov##__##ev, lt__buf, lt__w.off,     \
			      lt__w.overflow);                                \
	}                                                                     \
	/* inline at every call site, whatever their number: the fixed     \
	 * payload's sequence belongs there (tp_seq.h) */  \
	__attribute__((unused, always_inline)) static inline void             \
		lt__probe_##prov##__##ev(LT__PARAMS args)                     \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		const size_t lt__fixed = 0 LT__SIZE(fields);                  \
		if (lt__fixed >= 4 && lt__fixed <= 16)                        \
			LT__EMIT_FIXED(&lt__ev_##prov##__##ev, lt__fixed,     \
				       LT__WRITES(fields));                   \
		else                                                          \
			lt__probe_mem_##prov##__##ev(LT__NAMES args);         \
	}

/* An event that carries no fields. */
#define LT_EVENT_NOARGS(prov, ev, level)                                     \
	static const struct lt_field_desc *lt__fields0_##prov##__##ev(void)  \
	{                                                                    \
		static const struct lt_field_desc lt__f[] = {                \
			{ NULL, 0, 0, 0, 0, 0, NULL }                        \
		};                                                           \
		return lt__f;                                                \
	}                                                                    \
	LT__EVENT_COMMON(prov, ev, level)                                    \
	__attribute__((unused)) static inline void lt__probe_##prov##__##ev( \
		void)                                                        \
	{                                                                    \
		lt_probe_emit(&lt__ev_##prov##__##ev, NULL, 0, 0);           \
	}

/* Labels for an enum field: LT_ENUM_VALUE("A", 0) LT_ENUM_RANGE("B", 1, 9) */
#define LT_ENUM_VALUE(label, v) { label, (v), (v) },
#define LT_ENUM_RANGE(label, lo, hi) { label, (lo), (hi) },
#define LT_ENUM(prov, en, ...)                                            \
	static const struct lt_enum_entry lt__enum_e_##prov##__##en[] = { \
		__VA_ARGS__                                               \
	};                                                                \
	static const struct lt_enum_desc lt__enum_##prov##__##en          \
		__attribute__((unused)) = {                               \
			#prov "_" #en, lt__enum_e_##prov##__##en,         \
			sizeof(lt__enum_e_##prov##__##en) /               \
				sizeof(lt__enum_e_##prov##__##en[0])      \
		};

/* Emits the event if it is enabled; the arguments are evaluated only then. */
#define lt_trace(prov, ev, ...)                                             \
	do {                                                                \
		if (__builtin_expect(                                       \
			    __atomic_load_n(&lt__ev_##prov##__##ev.enabled, \
					    __ATOMIC_RELAXED),              \
			    0))                                             \
			lt__probe_##prov##__##ev(__VA_ARGS__);              \
	} while (0)

/* Whether the event is enabled (to skip preparing costly arguments). */
#define lt_trace_enabled(prov, ev)                                       \
	__builtin_expect(__atomic_load_n(&lt__ev_##prov##__##ev.enabled, \
					 __ATOMIC_RELAXED),              \
			 0)

/*
 * Markers: lt_tracef("frame %u late by %lld us (%s)", id, late, name)
 * anywhere, with no definition elsewhere.  Each call site is an event of
 * its own, provider "lt_tracef", named "FILE:LINE" (so -e 'lt_tracef:*'
 * or -e 'lt_tracef:src/net.c:*' select them), log level LT_DEBUG, with
 * one field per argument (arg0, arg1, ...) typed by the compiler: an
 * integer of the argument's size and sign, a float or double, a string
 * (char *, const char *: copied, at most LT_STRING_MAX bytes), or a
 * pointer (a 64-bit hexadecimal integer).  The format is a string
 * literal; it goes into the trace's metadata with the fields, and the
 * reader formats the text (`lowtrace view`): nothing is formatted and
 * nothing allocated on the tracing path, which is an LT_EVENT's (the
 * inline sequence for 4 to 16 bytes of integers and floats).
 *
 * Conversions: d i u o x X c with the length modifiers hh h l ll j z t,
 * f F e E g G, s, p, and %%; flags, width and precision as digits.  Not
 * supported: %n, %a, %m, long double (L), wide characters and strings
 * (%lc, %ls), '*' widths.  At most 10 arguments.
 *
 * Checked by the compiler, in C and C++, with GCC and clang, at every
 * optimisation level, at no cost at run time: every conversion and
 * their number against the arguments (an error: "lt_tracef: a
 * conversion that is not supported", "... not one argument per
 * conversion", "... the format is not a string literal"), the
 * arguments against the format (the printf format attribute: -Wformat,
 * in -Wall), a type the field kinds cannot hold (long double, a struct:
 * an error).  In C the check reads the first 32 '%' of the format with
 * GCC, its first 256 characters with clang (LT__TF_GRAMMAR below); the
 * rest of a longer format is left to the registry, which checks each
 * marker again as its object loads: a marker with an unsupported
 * conversion, a count of arguments that differs, or an argument of the
 * wrong kind for its conversion (%p needs a void *, %s a string) is
 * reported on stderr and stays disabled.
 */

/* the fields() of every marker's event: says what its descriptor is */
__attribute__((unused)) static const struct lt_field_desc *lt__marker_tag(void)
{
	static const struct lt_field_desc lt__t[] = {
		{ "", LT_FT_MARKER, 0, 0, 0, 0, NULL },
		{ NULL, 0, 0, 0, 0, 0, NULL }
	};
	return lt__t;
}

/* printf's checks of the arguments against the format, never called */
__attribute__((unused, format(printf, 1, 2))) static inline void
lt__tf_check(const char *fmt, ...)
{
	(void)fmt;
}

/* an argument's kind: 0 pointer, 1 integer, 2 float, 3 string, -1 none */
#ifdef __cplusplus
extern "C++" {
namespace lt__cxx
{
template <typename T> constexpr int tf_kind()
{
	return is_string<T>()		 ? 3 :
	       is_float<T>()		 ? 2 :
	       is_int<T>()		 ? 1 :
	       std::is_pointer<T>::value ? 0 :
					   -1;
}
inline void tf_put(struct lt__writer *w, const char *s)
{
	lt__put_string(w, s);
}
inline void tf_put(struct lt__writer *w, char *s)
{
	lt__put_string(w, s);
}
template <typename T> inline void tf_put(struct lt__writer *w, T *p)
{
	uint64_t u = (uint64_t)(uintptr_t)p;
	lt__put(w, &u, 8);
}
template <typename T>
inline typename std::enable_if<!std::is_pointer<T>::value>::type
tf_put(struct lt__writer *w, T v)
{
	lt__put(w, &v, sizeof(v));
}

/* the format's conversions from f[i], counted from n; -1 at one that is
 * not supported (the grammar of src/runtime/format/marker.c's lt_marker_next()) */
constexpr int tf_flags(const char *f, int i)
{
	return (f[i] == '-' || f[i] == '+' || f[i] == ' ' || f[i] == '#' ||
		f[i] == '0' || f[i] == '\'') ?
		       tf_flags(f, i + 1) :
		       i;
}
constexpr int tf_digits(const char *f, int i)
{
	return (f[i] >= '0' && f[i] <= '9') ? tf_digits(f, i + 1) : i;
}
constexpr int tf_prec(const char *f, int i)
{
	return f[i] == '.' ? tf_digits(f, i + 1) : i;
}
constexpr int tf_len(const char *f, int i)
{
	return ((f[i] == 'h' && f[i + 1] == 'h') ||
		(f[i] == 'l' && f[i + 1] == 'l')) ?
		       i + 2 :
	       (f[i] == 'h' || f[i] == 'l' || f[i] == 'j' || f[i] == 'z' ||
		f[i] == 't') ?
		       i + 1 :
		       i;
}
/* the conversion at f[i]; m where its length modifier began (none: i) */
constexpr bool tf_conv(const char *f, int m, int i)
{
	return f[i] == 'd' || f[i] == 'i' || f[i] == 'u' || f[i] == 'o' ||
	       f[i] == 'x' || f[i] == 'X' || f[i] == 'f' || f[i] == 'F' ||
	       f[i] == 'e' || f[i] == 'E' || f[i] == 'g' || f[i] == 'G' ||
	       ((f[i] == 's' || f[i] == 'c' || f[i] == 'p') && m == i);
}
constexpr int tf_count(const char *f, int i, int n);
constexpr int tf_spec(const char *f, int m, int i, int n)
{
	return tf_conv(f, m, i) ? tf_count(f, i + 1, n + 1) : -1;
}
constexpr int tf_at(const char *f, int m, int n)
{
	return tf_spec(f, m, tf_len(f, m), n);
}
constexpr int tf_count(const char *f, int i, int n)
{
	return !f[i] ? n :
	       f[i] != '%' ?
		       tf_count(f, i + 1, n) :
	       f[i + 1] == '%' ?
		       tf_count(f, i + 2, n) :
		       tf_at(f, tf_prec(f, tf_digits(f, tf_flags(f, i + 1))),
			     n);
}
} // namespace lt__cxx

/*
 * A marker registers on its own, as its object loads, by the dynamic
 * initialisation of a static member of a class template instantiated
 * for a class local to the call site: g++ drops the section attribute
 * of a static local in a template or an inline function (it has vague
 * linkage) or stops at a section type conflict, so C++'s markers are
 * not in the lt_events section.
 */
namespace lt__cxx
{
template <typename Site> struct tf_reg {
	tf_reg()
	{
		lt_probe_register_range(Site::range(), Site::range() + 1);
		lt_session_autostart();
	}
	~tf_reg()
	{
		lt_probe_unregister_range(Site::range(), Site::range() + 1);
	}
	static tf_reg instance;
};
template <typename Site> tf_reg<Site> tf_reg<Site>::instance;
} // namespace lt__cxx
}
#define LT__TF_REGISTER(d)                                              \
	struct lt__tf_site {                                            \
		static struct lt_event_desc *const *range()             \
		{                                                       \
			static struct lt_event_desc *const lt__r[1] = { \
				&d.ev                                   \
			};                                              \
			return lt__r;                                   \
		}                                                       \
	};                                                              \
	(void)&lt__cxx::tf_reg<lt__tf_site>::instance;
#define LT__TF_KIND(x) (lt__cxx::tf_kind<LT__TYPE(x)>())
#define LT__TF_SIGNED_ARG(x) LT__SIGNED(x)
#define LT__TF_PUT(x) lt__cxx::tf_put(&lt__w, (x))
/* the enabled path in a function of its own, an inline lambda: clang
 * checks the asm goto of the inline sequence against the labels of
 * every other one in the function, which C++ forbids jumping past
 * initialisations */
#define LT__TF_BODY(...) [&]() __attribute__((always_inline)){ __VA_ARGS__ }();
#define LT__TF_COUNT_CHECK(fmt, n)                                      \
	static_assert(lt__cxx::tf_count(fmt, 0, 0) == (n),              \
		      "lt_tracef: a conversion that is not supported, " \
		      "or not one argument per conversion");
#else
#define LT__TF_INTS(v)                                                         \
_Bool:                                                                         \
	v, char : v,                                                           \
		  signed char : v,                                             \
				unsigned char : v,                             \
						short : v,                     \
							unsigned short : v,    \
									 int   \
	    : v,                                                               \
	      unsigned : v,                                                    \
			 long : v,                                             \
				unsigned long : v,                             \
						long long : v,                 \
							    unsigned long long \
	    : v
#define LT__TF_KIND(x)                                                     \
	_Generic((x), char * : 3, const char * : 3, float : 2, double : 2, \
		 LT__TF_INTS(1), default : 0)
#define LT__TF_SIGNED_ARG(x)                                         \
	_Generic((x), signed char : 1, short : 1, int : 1, long : 1, \
		 long long : 1, char                                 \
		 : (char)-1 < 0, float : 1, double : 1, default : 0)
#define LT__TF_PUT_FN(name, T)                                                \
	__attribute__((unused)) static inline void name(struct lt__writer *w, \
							T v)                  \
	{                                                                     \
		lt__put(w, &v, sizeof(v));                                    \
	}
LT__TF_PUT_FN(lt__tf_put_b, _Bool)
LT__TF_PUT_FN(lt__tf_put_c, char)
LT__TF_PUT_FN(lt__tf_put_sc, signed char)
LT__TF_PUT_FN(lt__tf_put_uc, unsigned char)
LT__TF_PUT_FN(lt__tf_put_h, short)
LT__TF_PUT_FN(lt__tf_put_uh, unsigned short)
LT__TF_PUT_FN(lt__tf_put_i, int)
LT__TF_PUT_FN(lt__tf_put_u, unsigned)
LT__TF_PUT_FN(lt__tf_put_l, long)
LT__TF_PUT_FN(lt__tf_put_ul, unsigned long)
LT__TF_PUT_FN(lt__tf_put_ll, long long)
LT__TF_PUT_FN(lt__tf_put_ull, unsigned long long)
LT__TF_PUT_FN(lt__tf_put_f, float)
LT__TF_PUT_FN(lt__tf_put_d, double)
__attribute__((unused)) static inline void lt__tf_put_str(struct lt__writer *w,
							  const char *s)
{
	lt__put_string(w, s);
}
/* any other pointer; anything else (long double, a struct) fails here */
__attribute__((unused)) static inline void
lt__tf_put_ptr(struct lt__writer *w, const volatile void *p)
{
	uint64_t u = (uint64_t)(uintptr_t)p;
	lt__put(w, &u, 8);
}
#define LT__TF_PUT(x) \
	_Generic((x), char * : lt__tf_put_str, const char * : lt__tf_put_str, \
		 float : lt__tf_put_f, double : lt__tf_put_d,                 \
		 _Bool : lt__tf_put_b, char : lt__tf_put_c,                   \
		 signed char : lt__tf_put_sc, unsigned char : lt__tf_put_uc,  \
		 short : lt__tf_put_h, unsigned short : lt__tf_put_uh,        \
		 int : lt__tf_put_i, unsigned : lt__tf_put_u,                 \
		 long : lt__tf_put_l, unsigned long : lt__tf_put_ul,          \
		 long long : lt__tf_put_ll,                                   \
		 unsigned long long : lt__tf_put_ull,                         \
		 default : lt__tf_put_ptr)(&lt__w, (x))
/*
 * C's compile-time check of a marker's format: the grammar of
 * src/runtime/format/marker.c's lt_marker_next() as integer constant expressions
 * on the literal (enumerators' values), which both compilers fold at
 * every optimisation level and which cost nothing at run time.  GCC
 * folds __builtin_strspn() and __builtin_strcspn() on a literal but not
 * a character of it: the format is read one '%' at a time, 32 of them
 * ("%%" and conversions).  Clang folds a character of a literal but not
 * strspn(): the format is read one character at a time by a state
 * machine, 256 of them.  What lies beyond is left to the registry's
 * check as the object loads.  tests/test_marker.c checks it against
 * lt_marker_next() on a table of formats; tests/test_tracef.sh compiles
 * markers with both compilers.
 */
#define LT__TF_AT(f, i) (&(f)[(i) < lt__tf_len ? (i) : lt__tf_len - 1])
#ifdef __clang__
/* X(f, hi, lo, and the hex digits of the position before) at positions
 * 0x00 to 0xff */
/* clang-format off */
#define LT__TF_B16(X, fm, hi, ph) \
	X(fm, hi, 0, ph, f) X(fm, hi, 1, hi, 0) X(fm, hi, 2, hi, 1) \
	X(fm, hi, 3, hi, 2) X(fm, hi, 4, hi, 3) X(fm, hi, 5, hi, 4) \
	X(fm, hi, 6, hi, 5) X(fm, hi, 7, hi, 6) X(fm, hi, 8, hi, 7) \
	X(fm, hi, 9, hi, 8) X(fm, hi, a, hi, 9) X(fm, hi, b, hi, a) \
	X(fm, hi, c, hi, b) X(fm, hi, d, hi, c) X(fm, hi, e, hi, d) \
	X(fm, hi, f, hi, e)
#define LT__TF_B256(X, fm) \
	LT__TF_B16(X, fm, 0, _) LT__TF_B16(X, fm, 1, 0) LT__TF_B16(X, fm, 2, 1) \
	LT__TF_B16(X, fm, 3, 2) LT__TF_B16(X, fm, 4, 3) LT__TF_B16(X, fm, 5, 4) \
	LT__TF_B16(X, fm, 6, 5) LT__TF_B16(X, fm, 7, 6) LT__TF_B16(X, fm, 8, 7) \
	LT__TF_B16(X, fm, 9, 8) LT__TF_B16(X, fm, a, 9) LT__TF_B16(X, fm, b, a) \
	LT__TF_B16(X, fm, c, b) LT__TF_B16(X, fm, d, c) LT__TF_B16(X, fm, e, d) \
	LT__TF_B16(X, fm, f, e)
/* clang-format on */
/* the class of a character: 0 the end, 1 '%', 2 a flag, 3 '0', 4 another
 * digit, 5 '.', 6 'h', 7 'l', 8 j z t, 9 a numeric conversion, 10 s c p */
#define LT__TF_CLASS(c)                                                        \
	((c) == 0   ? 0 :                                                      \
	 (c) == '%' ? 1 :                                                      \
	 (c) == '-' || (c) == '+' || (c) == ' ' || (c) == '#' || (c) == '\'' ? \
		      2 :                                                      \
	 (c) == '0'				? 3 :                          \
	 (c) >= '1' && (c) <= '9'		? 4 :                          \
	 (c) == '.'				? 5 :                          \
	 (c) == 'h'				? 6 :                          \
	 (c) == 'l'				? 7 :                          \
	 (c) == 'j' || (c) == 'z' || (c) == 't' ? 8 :                          \
	 (c) == 'd' || (c) == 'i' || (c) == 'u' || (c) == 'o' || (c) == 'x' || \
			 (c) == 'X' || (c) == 'f' || (c) == 'F' ||             \
			 (c) == 'e' || (c) == 'E' || (c) == 'g' ||             \
			 (c) == 'G' ?                                          \
						  9 :                          \
	 (c) == 's' || (c) == 'c' || (c) == 'p' ? 10 :                         \
						  11)
/* the state after a character of class c: 16 * conversions + where in
 * one (0 text, 1 after '%', 2 flags, 3 width, 4 precision, 5 'h', 6 'l',
 * 7 after the length, 8 the end), -1 past one that is not supported */
#define LT__TF_P(s) ((s)&15)
#define LT__TF_B(s) ((s) & ~15)
#define LT__TF_NEXT(s, c)                                                   \
	((s) < 0				    ? -1 :                  \
	 LT__TF_P(s) == 8			    ? (s) :                 \
	 LT__TF_P(s) == 0			    ? ((c) == 1 ? (s) + 1 : \
						       (c) == 0 ? (s) + 8 : \
								  (s)) :    \
	 LT__TF_P(s) == 1 && (c) == 1		    ? (s)-1 :               \
	 LT__TF_P(s) <= 2 && ((c) == 2 || (c) == 3) ? LT__TF_B(s) + 2 :     \
	 LT__TF_P(s) <= 3 && ((c) == 3 || (c) == 4) ? LT__TF_B(s) + 3 :     \
	 LT__TF_P(s) == 4 && ((c) == 3 || (c) == 4) ? (s) :                 \
	 LT__TF_P(s) <= 3 && (c) == 5		    ? LT__TF_B(s) + 4 :     \
	 LT__TF_P(s) <= 4 && (c) >= 6 && (c) <= 8   ? LT__TF_B(s) + (c)-1 : \
	 (LT__TF_P(s) == 5 && (c) == 6) || (LT__TF_P(s) == 6 && (c) == 7) ? \
						    LT__TF_B(s) + 7 :       \
	 (c) == 9 || (LT__TF_P(s) <= 4 && (c) == 10) ? LT__TF_B(s) + 16 :   \
						       -1)
/* the character and its class as enumerators of their own: each is
 * named many times by the next */
#define LT__TF_POS(f, hi, lo, ph, pl)                      \
	lt__tf_c##hi##lo = *LT__TF_AT(f, 0x##hi##lo),      \
	lt__tf_k##hi##lo = LT__TF_CLASS(lt__tf_c##hi##lo), \
	lt__tf_s##hi##lo = LT__TF_NEXT(lt__tf_s##ph##pl, lt__tf_k##hi##lo),
/* lt__tf_bad: not supported; lt__tf_convs: conversions, if lt__tf_done */
#define LT__TF_GRAMMAR(f)                                       \
	lt__tf_len = sizeof(f), lt__tf_s_f = 0,                 \
	LT__TF_B256(LT__TF_POS, f) lt__tf_bad = lt__tf_sff < 0, \
	lt__tf_done = LT__TF_P(lt__tf_sff) == 8,                \
	lt__tf_convs = lt__tf_sff >> 4
/* folding a character of a literal is an extension -pedantic names */
#define LT__TF_FOLD_BEGIN                \
	_Pragma("clang diagnostic push") \
		_Pragma("clang diagnostic ignored \"-Wgnu-folding-constant\"")
#define LT__TF_FOLD_END _Pragma("clang diagnostic pop")
#else
#define LT__TF_FOLD_BEGIN
#define LT__TF_FOLD_END
/* X(f, j, j + 1): the conversions (or "%%") 0 to 31 */
/* clang-format off */
#define LT__TF_STEPS(X, fm) \
	X(fm, 0, 1) X(fm, 1, 2) X(fm, 2, 3) X(fm, 3, 4) X(fm, 4, 5) X(fm, 5, 6) \
	X(fm, 6, 7) X(fm, 7, 8) X(fm, 8, 9) X(fm, 9, 10) X(fm, 10, 11) X(fm, 11, 12) \
	X(fm, 12, 13) X(fm, 13, 14) X(fm, 14, 15) X(fm, 15, 16) X(fm, 16, 17) X(fm, 17, 18) \
	X(fm, 18, 19) X(fm, 19, 20) X(fm, 20, 21) X(fm, 21, 22) X(fm, 22, 23) X(fm, 23, 24) \
	X(fm, 24, 25) X(fm, 25, 26) X(fm, 26, 27) X(fm, 27, 28) X(fm, 28, 29) X(fm, 29, 30) \
	X(fm, 30, 31) X(fm, 31, 32)
/* clang-format on */
#define LT__TF_IN(f, i, set) (__builtin_strspn(LT__TF_AT(f, i), set) != 0)
#define LT__TF_SPN(f, i, set) __builtin_strspn(LT__TF_AT(f, i), set)
/* from p_j in the text: the next '%' at q_j; e_j: the end; d_j: "%%"; a
 * conversion's flags end at a_j, width at b_j, precision at c_j, length
 * modifier (l_j letters) at c_j + l_j, then the conversion */
#define LT__TF_CONV(f, j, k)                                                  \
	lt__tf_q##j = lt__tf_p##j +                                           \
		      __builtin_strcspn(LT__TF_AT(f, lt__tf_p##j), "%"),      \
	lt__tf_e##j = !LT__TF_IN(f, lt__tf_q##j, "%"),                        \
	lt__tf_d##j = LT__TF_IN(f, lt__tf_q##j + 1, "%"),                     \
	lt__tf_a##j =                                                         \
		lt__tf_q##j + 1 + LT__TF_SPN(f, lt__tf_q##j + 1, "-+ #0'"),   \
	lt__tf_b##j = lt__tf_a##j + LT__TF_SPN(f, lt__tf_a##j, "0123456789"), \
	lt__tf_c##j =                                                         \
		lt__tf_b##j +                                                 \
		(LT__TF_IN(f, lt__tf_b##j, ".") ?                             \
			 1 + LT__TF_SPN(f, lt__tf_b##j + 1, "0123456789") :   \
			 0),                                                  \
	lt__tf_l##j = LT__TF_SPN(f, lt__tf_c##j, "hljzt"),                    \
	lt__tf_ok##j =                                                        \
		(lt__tf_l##j == 0 &&                                          \
		 LT__TF_IN(f, lt__tf_c##j, "diuoxXfFeEgGscp")) ||             \
		((lt__tf_l##j == 1 ||                                         \
		  (lt__tf_l##j == 2 &&                                        \
		   (!__builtin_strncmp(LT__TF_AT(f, lt__tf_c##j), "hh", 2) || \
		    !__builtin_strncmp(LT__TF_AT(f, lt__tf_c##j), "ll",       \
				       2)))) &&                               \
		 LT__TF_IN(f, lt__tf_c##j + lt__tf_l##j, "diuoxXfFeEgG")),    \
	lt__tf_p##k = lt__tf_e##j ? lt__tf_q##j :                             \
		      lt__tf_d##j ? lt__tf_q##j + 2 :                         \
				    lt__tf_c##j + lt__tf_l##j + 1,            \
	lt__tf_x##k = lt__tf_x##j ||                                          \
		      (!lt__tf_e##j && !lt__tf_d##j && !lt__tf_ok##j),        \
	lt__tf_n##k = lt__tf_n##j + (!lt__tf_e##j && !lt__tf_d##j),
/* lt__tf_bad: not supported; lt__tf_convs: conversions, if lt__tf_done */
#define LT__TF_GRAMMAR(f)                                                    \
	lt__tf_len = sizeof(f), lt__tf_p0 = 0, lt__tf_x0 = 0, lt__tf_n0 = 0, \
	LT__TF_STEPS(LT__TF_CONV, f) lt__tf_bad = lt__tf_x32,                \
	lt__tf_done = !__builtin_strlen(LT__TF_AT(f, lt__tf_p32)),           \
	lt__tf_convs = lt__tf_n32
#endif
#define LT__TF_COUNT_CHECK(fmt, n)                                       \
	_Static_assert(__builtin_constant_p(fmt),                        \
		       "lt_tracef: the format is not a string literal"); \
	LT__TF_FOLD_BEGIN enum { LT__TF_GRAMMAR(fmt) };                  \
	LT__TF_FOLD_END                                                  \
	_Static_assert(!lt__tf_bad,                                      \
		       "lt_tracef: a conversion that is not supported"); \
	_Static_assert(!lt__tf_done || lt__tf_convs == (n),              \
		       "lt_tracef: not one argument per conversion");
/* in the object's lt_events section, as LT_EVENT's descriptors */
#define LT__TF_REGISTER(d)                                               \
	static struct lt_event_desc *const lt__tf_p LT__SECTION = &d.ev; \
	(void)lt__tf_p;
#define LT__TF_BODY(...)    \
	{                   \
		__VA_ARGS__ \
	}
#endif

/* argument i's field description, serialisation, and fixed size */
#define LT__TF_DESC(i, x)                                                   \
	{ "arg" #i,                                                         \
	  LT__TF_KIND(x) == 3 ? LT_FT_STRING :                              \
	  LT__TF_KIND(x) == 2 ? LT_FT_FLOAT :                               \
				LT_FT_INT,                                  \
	  (uint8_t)(LT__TF_KIND(x) == 3 ? 1 :                               \
		    LT__TF_KIND(x) == 0 ? 8 :                               \
					  sizeof(x)),                       \
	  LT__TF_KIND(x) == 1 ? LT__TF_SIGNED_ARG(x) : LT__TF_KIND(x) == 2, \
	  (uint8_t)(LT__TF_KIND(x) == 0 ? 16 : 10),                         \
	  0,                                                                \
	  NULL },
#define LT__TF_WRITE(i, x)                                                 \
	LT__STATIC_ASSERT(LT__TF_KIND(x) >= 0,                             \
			  "lt_tracef: argument " #i " is not an integer, " \
			  "a float or double, a string or a pointer");     \
	LT__TF_PUT(x);
#define LT__TF_SIZE(i, x)                              \
	+(LT__TF_KIND(x) == 3 ? (size_t)LT_EVENT_MAX : \
	  LT__TF_KIND(x) == 0 ? (size_t)8 :            \
				sizeof(x))

#define LT__TF_NAME __FILE__ ":" LT__STR(__LINE__)

/* One call site: its descriptor, then the event as LT_EVENT's probe
 * writes it (fixed payloads of 4 to 16 bytes by the inline sequence). */
#define LT__TF_SITE(fmt, n, descs, writes, size, call)                         \
	do {                                                                   \
		static const struct lt_field_desc lt__tf_f[] = { descs{        \
			NULL, 0, 0, 0, 0, 0, NULL } };                         \
		static struct lt_marker_desc lt__tf_d = {                      \
			{ 0, LT__LAYOUT, LT_DEBUG, "lt_tracef", LT__TF_NAME,   \
			  "lt_tracef:" LT__TF_NAME, lt__marker_tag, 0, NULL,   \
			  NULL },                                              \
			"" fmt "",                                             \
			lt__tf_f                                               \
		};                                                             \
		LT__TF_REGISTER(lt__tf_d)                                      \
		LT__TF_COUNT_CHECK(fmt, n)                                     \
		if (0)                                                         \
			lt__tf_check call;                                     \
		if (__builtin_expect(__atomic_load_n(&lt__tf_d.ev.enabled,     \
						     __ATOMIC_RELAXED),        \
				     0))                                       \
			LT__TF_BODY(                                           \
				if ((0 size) >= 4 && (0 size) <= 16) {         \
					LT__EMIT_FIXED(&lt__tf_d.ev, (0 size), \
						       writes);                \
				} else {                                       \
					char lt__buf[(0 size) < LT_EVENT_MAX ? \
							     (0 size) + 1 :    \
							     LT_EVENT_MAX +    \
								     1];       \
					struct lt__writer lt__w = {            \
						lt__buf, 0,                    \
						(uint32_t)sizeof(lt__buf) - 1, \
						0                              \
					};                                     \
					writes lt_probe_emit(                  \
						&lt__tf_d.ev, lt__buf,         \
						lt__w.off, lt__w.overflow);    \
				})                                             \
	} while (0)

#define LT__TF_EACH_1(op, a0) op(0, a0)
#define LT__TF_EACH_2(op, a0, a1) op(0, a0) op(1, a1)
#define LT__TF_EACH_3(op, a0, a1, a2) op(0, a0) op(1, a1) op(2, a2)
#define LT__TF_EACH_4(op, a0, a1, a2, a3) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3)
#define LT__TF_EACH_5(op, a0, a1, a2, a3, a4) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4)
#define LT__TF_EACH_6(op, a0, a1, a2, a3, a4, a5) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5)
#define LT__TF_EACH_7(op, a0, a1, a2, a3, a4, a5, a6) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6)
#define LT__TF_EACH_8(op, a0, a1, a2, a3, a4, a5, a6, a7)                     \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7)
#define LT__TF_EACH_9(op, a0, a1, a2, a3, a4, a5, a6, a7, a8)                 \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7) op(8, a8)
#define LT__TF_EACH_10(op, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)            \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7) op(8, a8) op(9, a9)
/* lt_tracef with n arguments after the format */
#define LT__TF_N(n, fmt, ...)                                          \
	LT__TF_SITE(fmt, n, LT__TF_EACH_##n(LT__TF_DESC, __VA_ARGS__), \
		    LT__TF_EACH_##n(LT__TF_WRITE, __VA_ARGS__),        \
		    LT__TF_EACH_##n(LT__TF_SIZE, __VA_ARGS__),         \
		    (fmt, __VA_ARGS__))
#define LT__TRACEF_1(fmt) LT__TF_SITE(fmt, 0, , , , (fmt))
#define LT__TRACEF_2(fmt, ...) LT__TF_N(1, fmt, __VA_ARGS__)
#define LT__TRACEF_3(fmt, ...) LT__TF_N(2, fmt, __VA_ARGS__)
#define LT__TRACEF_4(fmt, ...) LT__TF_N(3, fmt, __VA_ARGS__)
#define LT__TRACEF_5(fmt, ...) LT__TF_N(4, fmt, __VA_ARGS__)
#define LT__TRACEF_6(fmt, ...) LT__TF_N(5, fmt, __VA_ARGS__)
#define LT__TRACEF_7(fmt, ...) LT__TF_N(6, fmt, __VA_ARGS__)
#define LT__TRACEF_8(fmt, ...) LT__TF_N(7, fmt, __VA_ARGS__)
#define LT__TRACEF_9(fmt, ...) LT__TF_N(8, fmt, __VA_ARGS__)
#define LT__TRACEF_10(fmt, ...) LT__TF_N(9, fmt, __VA_ARGS__)
#define LT__TRACEF_11(fmt, ...) LT__TF_N(10, fmt, __VA_ARGS__)

/* A marker: lt_tracef(FORMAT, args...), FORMAT a string literal. */
#define lt_tracef(...) LT__CAT(LT__TRACEF_, LT__NARGS(__VA_ARGS__))(__VA_ARGS__)

/*
 * Every object that includes this header registers the events of its
 * whole "lt_events" section when it is loaded, and the first one starts
 * the session the environment asks for; the registry counts repeated
 * registrations of one section.  liblowtrace's own events (it defines
 * LT__NO_REGISTRATION) are registered by its registry instead, which
 * starts no session.
 */
#ifndef LT__NO_REGISTRATION
extern struct lt_event_desc *const __start_lt_events[]
	__attribute__((weak, visibility("hidden")));
extern struct lt_event_desc *const __stop_lt_events[]
	__attribute__((weak, visibility("hidden")));

__attribute__((constructor, unused)) static void lt__register_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b) {
		lt_probe_register_range(a, b);
		lt_session_autostart();
	}
}

__attribute__((destructor, unused)) static void lt__unregister_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b)
		lt_probe_unregister_range(a, b);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
