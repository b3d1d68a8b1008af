// A program outside the project that uses own through its CMake package.
#include <own/shared_ptr.hpp>

int main() {
  own::shared_ptr<int> p = own::make_shared<int>(42);
  own::weak_ptr<int> w = p;
  return (*w.lock() == 42 && p.use_count() == 1) ? 0 : 1;
}
