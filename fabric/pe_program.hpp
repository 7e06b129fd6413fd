// A PE program: what every core does in one run of a multi-schedule exchange (an MD step, for instance),
// described once so that the cycle simulator executes it and the cost model prices it from the same data.
//
// A program has communication steps (schedules run one after another on one merged route table) and tasks.
// A task is triggered by the end of an earlier task (`after`), by the end of a communication step
// (`wait_comm`), and, when its first item waits on a receive slot, by that word landing (a data task, as the
// SDK's tasks bound to a color). A task is a list of items; an item optionally waits for one receive slot to
// land and then keeps the core busy for its cycles, which are costed from instruction classes of the preset.
// A communication step may be gated by a task: a PE injects its own words only once that task has ended
// there.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"

namespace wmd::fabric {

/// Instruction classes with a cost in the preset (`compute_cycles`).
enum class OpClass : std::uint8_t {
  Fadd,
  Fmul,
  Fma,
  Fminmax,
  Fdiv,
  Fsqrt,
  MemWord,
  FpToInt,
  IntOp,
  LoopIteration,
  TaskActivation,
  LandWord,
  SendWord
};

/// `count` scalar instructions of class `op` (elements == 0), or `count` vector (DSD) instructions each over
/// `elements` elements. A vector form follows DSD rules: an arithmetic operation costs the issue overhead
/// plus ceil(elements / elements per cycle) times the class cost, and its memory operands and destination are
/// part of it (a MemWord instruction that is not a gather costs nothing in a vector form). A `gather` (a
/// table lookup: its index, address and data-dependent loads) has no DSD form: it stays scalar, once per
/// element, and each gathered word is stored for the vector operations that read it. Control classes (loop,
/// task, fabric words) are charged as counted in either form.
struct Instr {
  OpClass op = OpClass::Fadd;
  int count = 1;
  int elements = 0;
  bool gather = false;
};

/// Cycles of one instruction class on `c`.
double op_cycles(OpClass op, const ComputeCycles& c);
/// Cycles of a sequence of instructions on `c` (not rounded).
double instr_cycles(const std::vector<Instr>& seq, const ComputeCycles& c);

/// One unit of a task's work: wait for receive slot `slot` of communication step `comm` (-1: no wait), then
/// keep the core busy for `cycles`.
struct TaskItem {
  std::int32_t comm = -1;
  std::int32_t slot = -1;
  std::int32_t cycles = 0;
};

/// A task, the same on every PE (its items differ per PE class).
struct TaskSpec {
  std::string name;
  int activity = 0;    // index in PeProgram::activities
  int after = -1;      // task whose end triggers this one (-1: none)
  int wait_comm = -1;  // communication step whose last word must have landed everywhere (-1: none)
};

/// One schedule of the program. Its own words leave a PE once task `gate` has ended there (-1: at once).
struct CommStep {
  ScheduleSpec spec;
  int activity = 0;
  int gate = -1;
};

/// The program of every PE. PEs of one class run the same items; `pe_class` is indexed by physical PE.
struct PeProgram {
  std::string name;
  Grid grid;
  bool wrap = false;
  std::vector<std::string> activities;
  std::vector<CommStep> comms;
  std::vector<TaskSpec> tasks;
  std::vector<std::int32_t> pe_class;     // physical PE -> class (empty: every PE is class 0)
  std::vector<std::int32_t> item_offset;  // (class * tasks + task) -> first item; size classes*tasks + 1
  std::vector<TaskItem> items;

  int classes() const {
    return tasks.empty() ? 0 : static_cast<int>((item_offset.size() - 1) / tasks.size());
  }
  int class_of(int pe) const { return pe_class.empty() ? 0 : pe_class[pe]; }
  /// Items of task `t` for class `k`: [first, last).
  std::int32_t first_item(int k, int t) const { return item_offset[k * tasks.size() + t]; }
  std::int32_t last_item(int k, int t) const { return item_offset[k * tasks.size() + t + 1]; }
};

/// Appends items class by class, task by task, and seals the offsets.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(PeProgram& p) : p_(p) { p_.item_offset.assign(1, 0); }
  /// Starts the items of the next (class, task) pair; call tasks.size() times per class, in task order.
  void next_task() {
    if (open_) p_.item_offset.push_back(static_cast<std::int32_t>(p_.items.size()));
    open_ = true;
  }
  void add(const TaskItem& it) { p_.items.push_back(it); }
  void finish() {
    if (open_) p_.item_offset.push_back(static_cast<std::int32_t>(p_.items.size()));
    open_ = false;
  }

 private:
  PeProgram& p_;
  bool open_ = false;
};

/// Throws std::logic_error when an index is out of range or the offsets do not cover classes × tasks. A
/// trigger that can never fire is not detected here: the simulator reports it as a deadlock.
void check_program(const PeProgram& p);

/// The program's communication steps merged into one schedule: routes of steps that share a mesh map are
/// shared (same colors), others get colors above them; receive slots are laid one step after another.
struct MergedSchedule {
  Schedule schedule;
  std::vector<int> comm_of_phase;  // phase -> communication step
  std::vector<int> slot_base;      // communication step -> first merged receive slot
};
MergedSchedule merge_comms(const PeProgram& p);

/// One stretch of a critical path: activity index and [start, end) in cycles.
struct PathSegment {
  int activity = 0;
  long long start = 0, end = 0;
};

/// When a task ran on one PE (simulator) or one PE class (model).
struct TaskTiming {
  long long start = -1, end = -1;
  long long data_wait = -1;  // latest cycle an item started after the core had idled for its word
  int data_comm = -1;        // the communication step that word came with
  int first_comm = -1;       // communication step of the first item's word (a data task), or -1
  long long busy = 0;        // cycles the task kept the core busy
};

/// When a communication step ran: phase 1 start, the latest gate (its PE or class), the last landing.
struct CommTiming {
  long long start = 0, gate = -1, end = 0;
  int gate_unit = -1;
};

/// Walks back from the last event to cycle 0 (each stretch to the activity that held the path); `timing`
/// is indexed unit * tasks + task; `end_unit`/`end_task` name the last task (or -1 when a comm ends last).
std::vector<PathSegment> critical_path(const PeProgram& p, const std::vector<CommTiming>& comms,
                                       const std::vector<TaskTiming>& timing, int end_unit, int end_task,
                                       long long total);

}  // namespace wmd::fabric
