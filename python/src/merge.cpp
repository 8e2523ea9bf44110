// merge_shards (job/merge.hpp) for the Python package: simphant.merge. The merge releases
// the GIL; it returns the summary as JSON text.
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "simphant/job/merge.hpp"

namespace nb = nanobind;

namespace simphant::python {

void bind_merge(nb::module_& m) {
  m.def(
      "merge_shards",
      [](const std::string& out, const std::vector<std::string>& shards, bool copy) {
        MergeOptions o;
        o.out = out;
        o.shards = shards;
        o.copy = copy;
        nb::gil_scoped_release release;
        return merge_shards(o).dump();
      },
      nb::arg("out"), nb::arg("shards"), nb::arg("copy"));
}

}  // namespace simphant::python
