#include "system/local_processes.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace sm {

namespace {

std::vector<int> pids_under(const std::filesystem::path& proc) {
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (err == std::errc() && end == name.data() + name.size() && pid > 0) pids.push_back(pid);
  }
  return pids;
}

// The parent id in a /proc/<pid>/stat text: the 4th field, counted after the ")" that ends the
// command name (which may itself hold spaces and parentheses).
int parent_of(const std::string& stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  int ppid = -1;
  rest >> state >> ppid;
  return rest ? ppid : -1;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Inodes of the sockets listening on `port` in one /proc/net/tcp-style table.
void listening_inodes(const std::filesystem::path& table, int port, std::set<std::string>& inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(f >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode)) continue;
    if (state != "0A") continue;  // TCP_LISTEN
    const size_t colon = local.rfind(':');
    if (colon == std::string::npos) continue;
    int local_port = 0;
    const std::string hex = local.substr(colon + 1);
    auto [end, err] = std::from_chars(hex.data(), hex.data() + hex.size(), local_port, 16);
    if (err == std::errc() && local_port == port) inodes.insert(inode);
  }
}

}  // namespace

std::vector<int> process_tree(int pid, const std::filesystem::path& root) {
  const auto proc = root / "proc";
  std::map<int, std::vector<int>> children;
  bool alive = false;
  for (int p : pids_under(proc)) {
    const std::string stat = read_file(proc / std::to_string(p) / "stat");
    if (stat.empty()) continue;
    if (p == pid) alive = true;
    children[parent_of(stat)].push_back(p);
  }
  if (!alive) return {};
  std::vector<int> out{pid};
  for (size_t i = 0; i < out.size(); ++i)
    for (int child : children[out[i]])
      if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> processes_listening_on(int port, const std::filesystem::path& root) {
  const auto proc = root / "proc";
  std::set<std::string> inodes;
  listening_inodes(proc / "net/tcp", port, inodes);
  listening_inodes(proc / "net/tcp6", port, inodes);
  inodes.erase("0");
  if (inodes.empty()) return {};
  std::vector<int> out;
  for (int p : pids_under(proc)) {
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator(proc / std::to_string(p) / "fd", ec)) {
      std::error_code link_ec;
      const std::string target = std::filesystem::read_symlink(fd.path(), link_ec).string();
      // "socket:[12345]"
      if (link_ec || !target.starts_with("socket:[") || target.back() != ']') continue;
      if (inodes.count(target.substr(8, target.size() - 9))) {
        out.push_back(p);
        break;
      }
    }
  }
  return out;
}

}  // namespace sm
