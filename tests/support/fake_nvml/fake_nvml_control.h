#pragma once
// A test's handle on the fake NVML library (fake_nvml.h): loads it (the same copy NvmlGpus::open
// of that path then gets) and reaches its controls. The destructor forgets the script, the fixed
// clock and the call counts, so the next test starts clean.
#include <dlfcn.h>

#include <string>

namespace sm::test {

class FakeNvmlControl {
 public:
  explicit FakeNvmlControl(const std::string& library_path)
      : lib_(dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (lib_ == nullptr) {
      const char* e = dlerror();
      load_error_ = e != nullptr ? e : "dlopen failed";
      return;
    }
    set_script_ = find<int (*)(const char*)>("fake_nvml_set_script");
    last_error_ = find<const char* (*)()>("fake_nvml_last_error");
    set_now_s_ = find<void (*)(double)>("fake_nvml_set_now_s");
    calls_ = find<long long (*)(const char*)>("fake_nvml_calls");
    reset_calls_ = find<void (*)()>("fake_nvml_reset_calls");
  }
  ~FakeNvmlControl() {
    if (!loaded()) return;
    set_script_(nullptr);
    set_now_s_(-1);
    reset_calls_();
    dlclose(lib_);
  }
  FakeNvmlControl(const FakeNvmlControl&) = delete;
  FakeNvmlControl& operator=(const FakeNvmlControl&) = delete;

  bool loaded() const {
    return lib_ != nullptr && set_script_ && last_error_ && set_now_s_ && calls_ && reset_calls_;
  }
  const std::string& load_error() const { return load_error_; }

  /// True when the script parses; else last_error() says why.
  bool set_script(const std::string& json) { return set_script_(json.c_str()) == 0; }
  void clear_script() { set_script_(nullptr); }
  std::string last_error() const { return last_error_(); }
  void set_now_s(double t_s) { set_now_s_(t_s); }
  long long calls(const char* function) const { return calls_(function); }
  void reset_calls() { reset_calls_(); }

 private:
  template <class F>
  F find(const char* name) {
    F f = reinterpret_cast<F>(dlsym(lib_, name));
    if (f == nullptr && load_error_.empty()) load_error_ = std::string("no ") + name;
    return f;
  }

  void* lib_ = nullptr;
  std::string load_error_;
  int (*set_script_)(const char*) = nullptr;
  const char* (*last_error_)() = nullptr;
  void (*set_now_s_)(double) = nullptr;
  long long (*calls_)(const char*) = nullptr;
  void (*reset_calls_)() = nullptr;
};

}  // namespace sm::test
