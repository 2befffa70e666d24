// SPDX-License-Identifier: GPL-2.0-or-later
// A C++ function for test-symbols: its symbol is mangled (_ZN2ns5Klass6methodEi)
// and must come back demangled.
namespace ns {
struct Klass {
	static int method(int x);
};

__attribute__((noinline)) int Klass::method(int x)
{
	return x * 7 + 1;
}
} // namespace ns

extern "C" void *rsp_test_cxx_method(void);

extern "C" void *rsp_test_cxx_method(void)
{
	return reinterpret_cast<void *>(&ns::Klass::method);
}
