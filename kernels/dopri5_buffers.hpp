#pragma once
// The per-instance arrays of the adaptive Dormand-Prince 5(4) path on the `cuda` and
// `cuda-fused` backends (docs/cuda-backend.md, "Adaptive steps"): each instance keeps its
// own internal time t and step h and advances past each grid time with its own accepted
// steps; BatchBuffers::Y holds the state AT the grid time (dense output), which every
// read, the frame and get_state see. Sized once when the batch is created (no allocation
// in the loop); structure of arrays with the instance index fastest, like BatchBuffers.
#include <cstdint>

namespace simphant::batch {

/// Number of stage slopes of Dormand-Prince 5(4) (seven stages, the last one FSAL).
constexpr int kDopri5Stages = 7;
/// Number of dense-output coefficient vectors (Hairer's rcont1..rcont5, contd5).
constexpr int kDopri5Dense = 5;

/// Per-instance flags (AdaptiveBuffers::flag), bits.
constexpr std::int8_t kAdaptiveRunning = 1;   ///< started (else the next advance starts it afresh)
constexpr std::int8_t kAdaptiveRejected = 2;  ///< the last attempt was rejected (the controller's last_rejected)
constexpr std::int8_t kAdaptiveActive = 4;    ///< attempts a step in the current round
constexpr std::int8_t kAdaptiveAccepted = 8;  ///< the current round's attempt was accepted
constexpr std::int8_t kAdaptiveStart = 16;    ///< (re)starts at the current advance from Y at its clock
constexpr std::int8_t kAdaptiveFresh = 32;    ///< ... with the first-step estimate and a fresh controller

template <class T>
struct AdaptiveBuffers {
  T* y;          ///< (13 N, n) internal state at t (after the last accepted step)
  T* k[kDopri5Stages];  ///< (13 N, n) each: stage slopes k1..k7; k1 = f(t, y) is kept between rounds (FSAL)
  T* cont;       ///< (5 * 13 N, n) dense-output coefficients of the last accepted step [t_old, t_old + h_old]
  T* y_grid;     ///< (13 N, n) copy of Y as the last grid step wrote it (a write to Y since restarts the integration)
  T* u;          ///< (n_inputs, n) the inputs the integration ran with (a change restarts it at the grid time)
  T* t;          ///< (n) internal time [s] on the instance's own clock
  T* h;          ///< (n) step size of the next attempt [s]
  T* t_old;      ///< (n) start of the last accepted step [s]
  T* h_old;      ///< (n) its size [s] (0: none since the start)
  T* facold;     ///< (n) the controller's memory (dopri5::ControllerState::facold)
  T* t_stage;    ///< (n) time of the stage being evaluated [s]
  T* h_new;      ///< (n) the controller's next step between decision and commit; d1 of the first-step estimate
  T* h_min;      ///< (n) smallest accepted step since the instance's (re)start [s] (0: none yet)
  T* h_max;      ///< (n) largest accepted step [s] (0: none yet)
  std::int64_t* accepted;  ///< (n) accepted steps
  std::int64_t* rejected;  ///< (n) rejected attempts
  std::int8_t* flag;       ///< (n) kAdaptive* bits
  int* unfinished;         ///< (1) a count the host reads back (instances short of the grid time, or to start)
};

/// Number of (n) arrays of T in AdaptiveBuffers (t .. h_max), allocated as one block.
constexpr int kAdaptiveScalars = 9;

}  // namespace simphant::batch
