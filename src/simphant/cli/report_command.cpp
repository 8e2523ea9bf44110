// `simphant report RESULTS.h5 [-o OUTDIR] [--quantity Q ...]`: runs the Python package's
// report (python/simphant/report, docs/report.md) with the interpreter SimPhant was built
// for, the package found beside the executable in a build tree or in the interpreter's
// site-packages (pip install), through python_module_launcher.hpp. Exit codes of README
// "Exit codes": the module's 0 / 2 / 3, 3 when the interpreter or a module it needs is
// missing, 128 + signal when stopped.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "python_module_launcher.hpp"
#include "simphant/model/output_settings.hpp"

namespace simphant::cli {

CLI::App* add_report_subcommand(CLI::App& app, ReportCliOptions& o) {
  CLI::App* r = app.add_subcommand(
      "report", "HTML report of a run's HDF5 file: distributions, peak loads against the swept parameters "
                "(Spearman, SRC, Sobol), time traces, run health (docs/report.md)");
  r->add_option("results", o.results, "The run's HDF5 file")->required();
  r->add_option("--out,-o", o.out, "Output folder (default: <results stem>_report in the current directory)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
                             "DIR"));
  r->add_option("--quantity", o.quantities,
                "Quantities to report (default all): reactions joint_loads bearing_loads driver_loads "
                "constraint_violation energy joint_coordinates power")
      ->check(CLI::IsMember(reduction_names()));
  return r;
}

int report_command(const ReportCliOptions& o) {
  std::vector<std::string> args{o.results};
  if (!o.out.empty()) args.insert(args.end(), {"--out", o.out});
  if (!o.quantities.empty()) {
    args.emplace_back("--quantity");
    args.insert(args.end(), o.quantities.begin(), o.quantities.end());
  }
  return run_python_module("report", "simphant.report.__main__", args);
}

}  // namespace simphant::cli
