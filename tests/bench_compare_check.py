#!/usr/bin/env python3
"""The MuJoCo side by side's report logic (bench/compare_report.py) and its C loop
(bench/mujoco_step_loop.cpp).

Always (no MuJoCo needed): medians of rounds, ratios to the C loop, the column choice
(the better of dense / sparse), FLOP rate = FLOPs per instance-step x instance-steps/s and
the fraction of the peak x threads, the JSON schema check (a good report passes, a broken
one names the field), the markdown rows.
With --mujoco-loop, only the C loop, which needs the pip package mujoco (exit 77,
skipped with the reason, without it): the loop builds against the wheel, prints its JSON,
steps the model it is given from the state it is given (its final qpos equals
mujoco.rollout's from the same MJB model and state, bit for bit), and refuses bad
arguments with exit 2 naming the flag.

Run: python3 tests/bench_compare_check.py [--mujoco-loop] (ctest: BenchCompareReport and
BenchCompareMujocoLoop).
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
import compare_report as cr  # noqa: E402


def rounds():
    """A model's rounds: the dense config is the faster one-core scalar, sparse the faster all-core."""
    return {
        "mujoco_c_loop_1": [1000.0, 900.0, 1100.0],   # median 1000
        "mujoco_c_loop_all": [1800.0, 2000.0],        # median 1900
        "mujoco_rollout_1": [400.0, 500.0, 600.0],    # median 500
        "simphant:cpu1-dense": [300.0, 250.0, 350.0],  # median 300
        "simphant:cpu1-sparse": [200.0, 200.0, 200.0],
        "simphant:cpu1-simd": [1500.0, 1400.0, 1600.0],  # median 1500
        "simphant:cpu-dense": [400.0, 400.0],
        "simphant:cpu-sparse": [500.0, 700.0],          # median 600
        "simphant:cpu-simd": [3000.0, 2800.0],          # median 2900
        "simphant:aba": [5000.0, 4000.0, 6000.0],       # median 5000
    }


FLOPS = {"cpu1-dense": 2e4, "cpu1-sparse": 1.5e4, "cpu1-simd": 1.5e4, "cpu-dense": 2e4, "cpu-sparse": 1.5e4,
         "cpu-simd": 1.5e4}


class Arithmetic(unittest.TestCase):
    def test_median_and_ratio(self):
        self.assertEqual(cr.median([3, 1, 2]), 2)
        self.assertEqual(cr.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(cr.median([]))
        self.assertEqual(cr.median([None, 5.0]), 5.0)
        self.assertEqual(cr.ratio(3.0, 2.0), 1.5)
        self.assertIsNone(cr.ratio(3.0, 0.0))
        self.assertIsNone(cr.ratio(None, 2.0))

    def test_flop_rate(self):
        r = cr.flop_rate(5e4, 2e4, 10.0, threads=2)  # 1 GFLOP/s of a 2 x 10 GFLOP/s peak
        self.assertAlmostEqual(r["GFLOPs"], 1.0, places=15)
        self.assertAlmostEqual(r["fraction_of_peak"], 0.05, places=15)
        self.assertIsNone(cr.flop_rate(5e4, 2e4, None)["fraction_of_peak"])
        self.assertIsNone(cr.flop_rate(None, 2e4, 10.0)["GFLOPs"])

    def test_summary_columns_ratios_rates(self):
        s = cr.summarize(rounds(), FLOPS, peak_gflops_per_core=20.0, threads_all=2)
        c, q, f = s["columns"], s["ratios"], s["flop_rates"]
        self.assertEqual(c["mujoco_c_loop_1"], 1000.0)
        self.assertEqual(c["mujoco_rollout_1"], 500.0)
        self.assertEqual((c["cpu_1"], c["cpu_1_config"]), (300.0, "cpu1-dense"))
        self.assertEqual((c["cpu_all"], c["cpu_all_config"]), (600.0, "cpu-sparse"))
        self.assertEqual(c["cpu_simd_1"], 1500.0)
        self.assertEqual(c["aba_1"], 5000.0)
        self.assertEqual(q["rollout/c_loop"], 0.5)
        self.assertEqual(q["cpu/c_loop"], 0.3)
        self.assertEqual(q["cpu_simd/c_loop"], 1.5)
        self.assertEqual(q["aba/c_loop"], 5.0)
        self.assertEqual(q["cpu_simd/cpu"], 5.0)
        self.assertEqual(q["cpu_all/c_loop_all"], 600.0 / 1900.0)
        self.assertEqual(q["cpu_simd_all/c_loop_all"], 2900.0 / 1900.0)
        # the FLOPs of the config the column came from
        self.assertEqual(f["cpu_1"]["flops_per_step"], 2e4)
        self.assertAlmostEqual(f["cpu_1"]["GFLOPs"], 2e4 * 300 / 1e9, delta=1e-18)
        self.assertAlmostEqual(f["cpu_1"]["fraction_of_peak"], 2e4 * 300 / 1e9 / 20.0, delta=1e-18)
        self.assertAlmostEqual(f["cpu_all"]["fraction_of_peak"], 1.5e4 * 600 / 1e9 / 40.0, delta=1e-18)
        self.assertAlmostEqual(f["cpu_simd_all"]["GFLOPs"], 1.5e4 * 2900 / 1e9, delta=1e-18)

    def test_missing_simd_and_mujoco(self):
        r = {k: v for k, v in rounds().items() if "simd" not in k and "mujoco" not in k}
        s = cr.summarize(r, FLOPS, 20.0, 2)
        self.assertIsNone(s["columns"]["cpu_simd_1"])
        self.assertIsNone(s["ratios"]["cpu/c_loop"])
        self.assertIsNone(s["flop_rates"]["cpu_simd_1"]["GFLOPs"])
        self.assertEqual(s["columns"]["cpu_1"], 300.0)


def report(models):
    return {"mujoco_version": "4.0.0", "host": "h", "date": "d", "cpu_peak": {"fp64_GFLOPs_per_core": 20.0},
            "method": {"rounds": 3, "threads_all": 2, "instances_1": 8, "instances_all": 64}, "models": models}


class Schema(unittest.TestCase):
    def test_good_report_passes_and_prints(self):
        doc = report([{"model": "arm7", "speed_summary": cr.summarize(rounds(), FLOPS, 20.0, 2)},
                      {"model": "slider_crank", "speed_skipped": "not converted"}])
        self.assertEqual(cr.validate_report(json.loads(json.dumps(doc))), [])
        md = cr.markdown_speed(doc)
        self.assertIn("| arm7 | 1e+03 | 500 | 300 (dense) | 1.5e+03 | 5e+03 | 0.50 | 0.30 | 1.50 | 5.00 | 5.00 |", md)
        self.assertIn("| arm7 | 20 | 0.006 | 0.0 % |", md)  # 20 kFLOP, 6 MFLOP/s, 0.03 % of 20 GFLOP/s
        self.assertIn("slider_crank: MuJoCo side not run: not converted", md)

    def test_broken_report_names_the_field(self):
        s = cr.summarize(rounds(), FLOPS, 20.0, 2)
        del s["columns"]["cpu_simd_1"]
        s["ratios"]["cpu/c_loop"] = math.nan
        doc = report([{"model": "arm7", "speed_summary": s}])
        del doc["cpu_peak"]
        errs = cr.validate_report(doc)
        self.assertTrue(any(e.startswith("cpu_peak:") for e in errs), errs)
        self.assertTrue(any("models[0] (arm7).speed_summary.columns.cpu_simd_1" in e for e in errs), errs)
        self.assertTrue(any("models[0] (arm7).speed_summary.ratios.cpu/c_loop" in e for e in errs), errs)


PENDULUM = """<mujoco><option timestep="0.001" integrator="RK4"/><worldbody><body>
<joint name="j" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
</body></worldbody></mujoco>"""


class CLoop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bench_compare_check_")
        cls.exe = os.path.join(cls.tmp, "mujoco_step_loop")
        r = subprocess.run(["bash", os.path.join(ROOT, "bench", "build_mujoco_step_loop.sh"), cls.exe],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_same_trajectory_as_rollout(self):
        import mujoco
        import numpy as np
        from mujoco import rollout
        m = mujoco.MjModel.from_xml_string(PENDULUM)
        m.opt.timestep = 2e-3  # set here: the MJB carries it to the C loop
        mjb = os.path.join(self.tmp, "p.mjb")
        mujoco.mj_saveModel(m, mjb, None)
        r = subprocess.run([self.exe, mjb, "--qpos", "0.3", "--qvel", "-0.5", "--qfrc", "0.25", "--steps", "500",
                            "--repeats", "2"], capture_output=True, text=True, check=True)
        out = json.loads(r.stdout)
        for k in ("mujoco_version", "steps", "seconds", "steps_per_s", "steps_per_s_median", "final_qpos"):
            self.assertIn(k, out)
        self.assertEqual(out["steps"], 500)
        self.assertEqual(len(out["steps_per_s"]), 2)
        self.assertEqual(out["timestep"], 2e-3)
        self.assertEqual(out["integrator"], int(mujoco.mjtIntegrator.mjINT_RK4))
        d = mujoco.MjData(m)
        d.qpos[:] = 0.3
        d.qvel[:] = -0.5
        mujoco.mj_forward(m, d)
        s0 = np.empty(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
        mujoco.mj_getState(m, d, s0, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        ctrl = np.full((1, 1, 1), 0.25)
        state, _ = rollout.rollout(m, d, s0[None, :], ctrl, control_spec=int(mujoco.mjtState.mjSTATE_QFRC_APPLIED),
                                   nstep=500)
        self.assertEqual(out["final_qpos"][0], state[0, -1, 1])  # bit for bit: the same model, state, loop
        self.assertNotAlmostEqual(out["final_qpos"][0], 0.3, places=3)  # it moved

    def test_bad_arguments_exit_2_naming_the_flag(self):
        xml = os.path.join(self.tmp, "p.xml")
        with open(xml, "w") as f:
            f.write(PENDULUM)
        for args, flag in ((["--qpos", "0.1,0.2"], "--qpos"), (["--steps", "x"], "--steps"),
                           (["--bogus"], "--bogus"), ([], "")):
            r = subprocess.run([self.exe, xml if args else os.path.join(self.tmp, "missing.xml")] + args,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(flag or "MODEL", r.stderr)


SKIPPED = 77  # ctest's SKIP_RETURN_CODE


def main(argv):
    loader = unittest.TestLoader()
    if "--mujoco-loop" in argv:
        try:
            import mujoco  # noqa: F401
        except ImportError as e:
            print(f"SKIP: the pip package mujoco is not installed ({e}): the C loop is not checked")
            return SKIPPED
        suite = loader.loadTestsFromTestCase(CLoop)
    else:
        module = sys.modules[__name__]
        suite = unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in vars(module).values()
                                   if isinstance(c, type) and issubclass(c, unittest.TestCase) and c is not CLoop)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
