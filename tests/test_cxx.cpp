/* SPDX-License-Identifier: MIT */
/*
 * test_cxx.cpp - lowtrace's public headers from C++: events of every
 * field kind called from a namespace, a member function, a template, a
 * lambda and a second translation unit (test_cxx_tu2.cpp), and
 * lt_tracef markers from each, whose text it prints too.  Traced with
 * LOWTRACE_TRACE; tests/test_cxx.sh reads the trace back with lowtrace
 * view and babeltrace2.  Also compiles the other public headers.
 *
 *	LOWTRACE_TRACE=DIR test_cxx ROUNDS
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include <lowtrace/lowtrace.h>
#include <lowtrace/rcu.h>
#include <lowtrace/rcu_call.h>
#include <lowtrace/rcu_hash.h>
#include <lowtrace/rcu_list.h>

#include "test_cxx_tp.h"

/* the markers' compile-time grammar: the conversions of a format, or -1
 * (tests/test_marker.c has the same formats for the registry's check) */
static_assert(lt__cxx::tf_count("a %d %5.2f %-10s %lld %hhx %zu %p %c %% %G", 0,
				0) == 9,
	      "supported conversions");
static_assert(lt__cxx::tf_count("100%% sure", 0, 0) == 0, "%%");
static_assert(lt__cxx::tf_count("%a", 0, 0) == -1, "%a");
static_assert(lt__cxx::tf_count("%n", 0, 0) == -1, "%n");
static_assert(lt__cxx::tf_count("%Lf", 0, 0) == -1, "%Lf");
static_assert(lt__cxx::tf_count("%ls", 0, 0) == -1, "%ls");
static_assert(lt__cxx::tf_count("%lc", 0, 0) == -1, "%lc");
static_assert(lt__cxx::tf_count("%lp", 0, 0) == -1, "%lp");
static_assert(lt__cxx::tf_count("%*d", 0, 0) == -1, "%*d");
static_assert(lt__cxx::tf_count("%m", 0, 0) == -1, "%m");
static_assert(lt__cxx::tf_count("trailing %", 0, 0) == -1, "trailing %");

namespace cxxns
{
static void in_namespace(int i)
{
	lt_trace(cxxns, inner, i, 0.25 * i);
	CXX_MARK("namespace %d %s", i, "cxxns");
}
} // namespace cxxns

class worker {
    public:
	explicit worker(uint32_t id) : id_(id)
	{
	}
	void step(int64_t v) const
	{
		lt_trace(cxxtp, small, id_, v);
		lt_trace(cxxtp, where, "member", (int)id_);
		CXX_MARK("member id %u v %lld", id_, (long long)v);
	}

    private:
	uint32_t id_;
};

template <typename T> static void in_template(T v)
{
	lt_trace(cxxtp, small, (uint32_t)sizeof(T), (int64_t)v);
	CXX_MARK("template sizeof %zu value %lld", sizeof(T), (long long)v);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	/* the RCU read side inline from C++ */
	lt_rcu_read_lock();
	lt_rcu_read_unlock();
	worker w(1000);
	auto lambda = [&w](int i) {
		lt_trace(cxxtp, where, "lambda", i);
		CXX_MARK("lambda %d %.2f", i, i * 0.5);
		w.step(-i);
	};
	for (int i = 0; i < rounds; i++) {
		lt_trace(cxxtp, ints, (int8_t)(-100 + i), (uint8_t)(200 + i),
			 (int16_t)(-30000 + i), (uint16_t)(0xbeef + i),
			 -2000000000 + i, 0xdeadbeefu + (uint32_t)i,
			 -9000000000000000000ll + i,
			 18000000000000000000ull + (uint64_t)i);
		lt_trace(cxxtp, colored,
			 i % 3 == 0 ? cxx_color::red :
			 i % 3 == 1 ? cxx_color::green :
				      cxx_color::blue,
			 i);
		lt_trace(cxxtp, floats, 0.5f + (float)i, 3.141592653589793 * i);
		std::string name = "std::string " + std::to_string(i);
		lt_trace(cxxtp, strings, "literal", name.c_str());
		uint16_t fixed[3] = { 1, 0xffff, (uint16_t)i };
		int32_t seq[4] = { -1, 2, -3, i };
		char comm[8] = "cxx";
		comm[3] = (char)('0' + i % 10);
		lt_trace(cxxtp, arrays, fixed, seq, (uint32_t)(i % 5), comm);
		cxxns::in_namespace(i);
		in_template<int16_t>((int16_t)-i);
		in_template<uint64_t>((uint64_t)i);
		lambda(i);
		cxx_tu2_emit(i);
	}
	return 0;
}
