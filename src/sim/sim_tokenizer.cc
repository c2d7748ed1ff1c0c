#include "sim/sim_tokenizer.h"

#include <algorithm>

namespace sm::sim {

namespace {

bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Calls on_piece(piece) for every token of `text`.
template <class OnPiece>
void for_each_piece(std::string_view text, OnPiece&& on_piece) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    while (i < n && is_space(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < n && !is_space(static_cast<unsigned char>(text[i]))) ++i;
    for (size_t p = start; p < i; p += SimTokenizer::kPieceBytes)
      on_piece(text.substr(p, std::min<size_t>(SimTokenizer::kPieceBytes, i - p)));
  }
}

}  // namespace

int64_t SimTokenizer::count(std::string_view text) {
  int64_t n = 0;
  for_each_piece(text, [&](std::string_view) { ++n; });
  return n;
}

void SimTokenizer::encode(std::string_view text, std::vector<int32_t>& out) {
  for_each_piece(text, [&](std::string_view piece) { out.push_back(piece_id(piece)); });
}

size_t SimTokenizer::token_offset(std::string_view text, int64_t token) {
  if (token <= 0) return 0;
  int64_t seen = 0;
  size_t offset = text.size();
  for_each_piece(text, [&](std::string_view piece) {
    if (seen++ == token) offset = std::min(offset, static_cast<size_t>(piece.data() - text.data()));
  });
  return offset;
}

int32_t SimTokenizer::piece_id(std::string_view piece) {
  return kFirstTextId + static_cast<int32_t>(fnv1a(piece) % static_cast<uint64_t>(kVocabSize - kFirstTextId));
}

void SimTokenizer::begin_message(std::string_view role, std::vector<int32_t>& out) {
  out.push_back(kImStartId);
  out.push_back(piece_id(role.substr(0, kPieceBytes)));
  out.push_back(kNewlineId);
}

void SimTokenizer::end_message(std::vector<int32_t>& out) {
  out.push_back(kImEndId);
  out.push_back(kNewlineId);
}

void SimTokenizer::generation_prompt(std::vector<int32_t>& out) {
  out.push_back(kImStartId);
  out.push_back(piece_id("assistant"));
  out.push_back(kNewlineId);
}

}  // namespace sm::sim
