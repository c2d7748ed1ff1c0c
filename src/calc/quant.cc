#include "calc/quant.h"

#include <algorithm>

namespace sm::calc {

double QuantSpec::bits_per_weight() const {
  if (group_size <= 0) return weight_bits;
  return weight_bits + (scale_bits + zero_bits) / static_cast<double>(group_size);
}

double QuantSpec::bits_for(const std::string& tensor_class) const {
  if (auto it = class_bits.find(tensor_class); it != class_bits.end()) return it->second;
  for (const char* kept : kDefault16BitClasses)
    if (tensor_class == kept) return 16.0;
  if (std::find(keep_16bit.begin(), keep_16bit.end(), tensor_class) != keep_16bit.end()) return 16.0;
  return bits_per_weight();
}

}  // namespace sm::calc
