#include <cstdio>
int main() { std::puts("contactuq"); }
