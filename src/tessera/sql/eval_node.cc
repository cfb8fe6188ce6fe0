#include "tessera/sql/eval_node.h"

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/map_node.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>

#include <mutex>

#include "tessera/expr/evaluator.h"
#include "tessera/status.h"

namespace tessera::sql {

namespace {

class EvalNode : public arrow::acero::MapNode {
 public:
  EvalNode(arrow::acero::ExecPlan* plan, std::vector<arrow::acero::ExecNode*> inputs,
           std::shared_ptr<arrow::Schema> output_schema, EvalNodeOptions options)
      : MapNode(plan, std::move(inputs), std::move(output_schema)), options_(std::move(options)) {}

  static arrow::Result<arrow::acero::ExecNode*> Make(arrow::acero::ExecPlan* plan,
                                                     std::vector<arrow::acero::ExecNode*> inputs,
                                                     const arrow::acero::ExecNodeOptions& options) {
    RETURN_NOT_OK(arrow::acero::ValidateExecNodeInputs(plan, inputs, 1, "EvalNode"));
    const auto& eval = static_cast<const EvalNodeOptions&>(options);
    arrow::FieldVector fields;
    for (const auto& output : eval.outputs) {
      fields.push_back(arrow::field(output.name, output.expression->type()));
    }
    return plan->EmplaceNode<EvalNode>(plan, std::move(inputs), arrow::schema(std::move(fields)),
                                       eval);
  }

  const char* kind_name() const override { return "EvalNode"; }

  // For EXPLAIN: "where <predicate>, <name> = <expression>, ...".
  std::string ToStringExtra(int indent) const override {
    std::string text;
    if (options_.predicate != nullptr) text = "where " + options_.predicate->ToString();
    for (const auto& output : options_.outputs) {
      if (!text.empty()) text += ", ";
      text += output.name + " = " + output.expression->ToString();
    }
    return text;
  }

 protected:
  arrow::Result<arrow::compute::ExecBatch> ProcessBatch(arrow::compute::ExecBatch batch) override {
    ARROW_ASSIGN_OR_RAISE(auto record, batch.ToRecordBatch(inputs_[0]->output_schema()));
    if (options_.predicate != nullptr) {
      ARROW_ASSIGN_OR_RAISE(auto truth, expr::EvaluatePredicate(*options_.predicate, *record));
      ARROW_ASSIGN_OR_RAISE(auto keep, expr::SelectRows(truth));
      if (keep->true_count() != record->num_rows()) {
        ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(record, keep));
        record = filtered.record_batch();
      }
    }
    std::vector<arrow::Datum> values;
    values.reserve(options_.outputs.size());
    for (const auto& output : options_.outputs) {
      ARROW_ASSIGN_OR_RAISE(auto value, expr::EvaluateValue(*output.expression, *record));
      if (!value->type()->Equals(*output.expression->type())) {
        return Error(ErrorKind::kInternal, "expression ", output.expression->ToString(),
                     " evaluated to ", value->type()->ToString(), ", not its type ",
                     output.expression->type()->ToString());
      }
      if (output.hashed && arrow::is_floating(value->type()->id())) {
        // -0.0 + 0.0 is 0.0 (IEEE 754, rounding to nearest); every other value, NaN and null
        // included, is kept.
        ARROW_ASSIGN_OR_RAISE(auto zero, arrow::MakeScalar(value->type(), 0.0));
        ARROW_ASSIGN_OR_RAISE(auto sum, arrow::compute::Add(*value, zero));
        value = sum.make_array();
      }
      values.push_back(std::move(value));
    }
    arrow::compute::ExecBatch out(std::move(values), record->num_rows());
    out.index = batch.index;
    return out;
  }

 private:
  EvalNodeOptions options_;
};

}  // namespace

arrow::Status RegisterEvalNode() {
  static std::once_flag once;
  static arrow::Status status;
  std::call_once(once, [] {
    status = expr::EnsureComputeInitialized();
    if (status.ok()) {
      status = arrow::acero::default_exec_factory_registry()->AddFactory(
          EvalNodeOptions::kFactoryName, EvalNode::Make);
    }
  });
  return status;
}

}  // namespace tessera::sql
