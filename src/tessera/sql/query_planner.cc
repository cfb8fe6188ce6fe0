#include "tessera/sql/query_planner.h"

#include <arrow/acero/options.h>
#include <arrow/compute/api_aggregate.h>
#include <arrow/compute/expression.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/thread_pool.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "tessera/expr/binder.h"
#include "tessera/expr/diagnostics.h"
#include "tessera/query/filtered_read.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/eval_node.h"
#include "tessera/sql/names.h"
#include "tessera/sql/syntax_tools.h"
#include "tessera/sql/table_functions.h"
#include "tessera/util/operation_control.h"

namespace tessera::sql {

namespace {

// A source's rows that end with Cancelled once the control current when the plan was made
// (util/operation_control.h: the server's KILL QUERY) is cancelled, so that a read stops at
// its next batch wherever in the plan the time goes (an aggregation, a join). The plan must
// run within the control's lifetime, as a statement's plan does.
class CancellableRows : public arrow::RecordBatchReader {
 public:
  CancellableRows(std::shared_ptr<arrow::RecordBatchReader> rows, util::OperationControl* control)
      : rows_(std::move(rows)), control_(control) {}
  std::shared_ptr<arrow::Schema> schema() const override { return rows_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    RETURN_NOT_OK(control_->CheckCancelled());
    return rows_->ReadNext(out);
  }
  arrow::Status Close() override { return rows_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> rows_;
  util::OperationControl* control_;
};

std::shared_ptr<arrow::RecordBatchReader> Cancellable(
    std::shared_ptr<arrow::RecordBatchReader> rows) {
  util::OperationControl* control = util::CurrentControl();
  if (control == nullptr) return rows;
  return std::make_shared<CancellableRows>(std::move(rows), control);
}

namespace ac = arrow::acero;
namespace cp = arrow::compute;
using expr::SyntaxNode;
using SyntaxKind = expr::SyntaxNode::Kind;

// A column of the relation FROM makes.
struct PlanColumn {
  std::string qualifier;    // the source's alias or table name
  std::string name;         // display name
  std::string source_name;  // its name in the source's own schema
  std::string field;        // unique in the plan
  int leaf = -1;
  bool needed = false;
};

// A source of rows: a table (scanned through query::Read) or rows from a table function or a
// subquery.
struct Leaf {
  const TableRef* ref = nullptr;
  std::string qualifier;
  std::optional<PinnedTable> table;
  std::shared_ptr<arrow::RecordBatchReader> reader;  // functions
  std::shared_ptr<arrow::Table> rows;                // subqueries
  std::string description;
  bool pushable = true;  // WHERE terms may be evaluated in its scan
  std::vector<SyntaxPtr> pushed;
  std::vector<int> columns;  // into Planner::columns_
};

// One aggregate call of the statement.
struct AggregateCall {
  std::string function;  // count, sum, ...
  bool distinct = false;
  bool star = false;
  SyntaxPtr argument;  // resolved; null for count(*)
  std::string argument_field;
  std::string field;
  std::string key;  // SyntaxKey of the call
  int position = 0;
};

struct OutputExpression {
  SyntaxPtr expression;  // resolved
  std::string display;
  int position = 0;
};

class Planner {
 public:
  Planner(const SelectStatement& statement, const ExecutionContext& context)
      : statement_(statement), context_(context) {}

  arrow::Result<PlannedQuery> Plan() {
    RETURN_NOT_OK(RegisterEvalNode());
    if (statement_.from != nullptr) {
      RETURN_NOT_OK(AddSources(*statement_.from, /*nullable_side=*/false));
    }
    AssignFields();
    RETURN_NOT_OK(ExpandSelectList());
    RETURN_NOT_OK(ResolveWhere());
    if (statement_.from != nullptr) RETURN_NOT_OK(ResolveJoinConditions(*statement_.from));
    RETURN_NOT_OK(ResolveOrderBy());
    ARROW_ASSIGN_OR_RAISE(const bool aggregate, IsAggregateQuery());
    SyntaxPtr having;
    if (statement_.having != nullptr) {
      ARROW_ASSIGN_OR_RAISE(having, Resolve(*statement_.having, "having clause", true));
    }
    limit_pushdown_ = !aggregate && !statement_.distinct && statement_.order_by.empty() &&
                      leaves_.size() <= 1 && residual_.empty() && statement_.limit.has_value();

    // Every name is resolved before a source is built, so the scans read every column used.
    if (aggregate) RETURN_NOT_OK(ResolveGroupKeys());
    ARROW_ASSIGN_OR_RAISE(auto declaration, BuildFrom());
    ARROW_ASSIGN_OR_RAISE(auto schema, ac::DeclarationToSchema(declaration));
    if (aggregate) {
      ARROW_ASSIGN_OR_RAISE(declaration, PlanAggregation(std::move(declaration), schema, &having));
      ARROW_ASSIGN_OR_RAISE(schema, ac::DeclarationToSchema(declaration));
    }
    ARROW_ASSIGN_OR_RAISE(declaration,
                          PlanOutputs(std::move(declaration), schema,
                                      aggregate ? std::move(having) : CombinedResidual()));
    if (statement_.distinct) {
      ARROW_ASSIGN_OR_RAISE(declaration, PlanDistinct(std::move(declaration)));
    }
    if (!order_keys_.empty()) declaration = PlanOrder(std::move(declaration));
    std::vector<cp::Expression> fields;
    std::vector<std::string> names;
    for (size_t i = 0; i < visible_outputs_; ++i) {  // not the hidden ORDER BY keys
      fields.push_back(cp::field_ref(OutputField(i)));
      names.push_back(OutputField(i));
    }
    declaration = ac::Declaration::Sequence(
        {std::move(declaration), {"project", ac::ProjectNodeOptions(fields, names)}});

    PlannedQuery planned;
    planned.declaration = std::move(declaration);
    for (size_t i = 0; i < visible_outputs_; ++i) {
      planned.column_names.push_back(outputs_[i].display);
    }
    planned.offset = statement_.offset;
    planned.limit = statement_.limit;
    planned.explain = std::move(explain_);
    planned.source_pool = source_pool_;
    for (const auto& leaf : leaves_) {
      if (leaf.table) planned.snapshots.push_back(leaf.table->snapshot);
    }
    return planned;
  }

 private:
  std::string At(int position) const { return context_.At(position); }
  static std::string OutputField(size_t i) { return "__out" + std::to_string(i); }

  // --- FROM: sources and their columns ---
  arrow::Status AddSources(const TableRef& ref, bool nullable_side) {
    if (ref.kind == TableRef::Kind::kJoin) {
      RETURN_NOT_OK(AddSources(*ref.left, nullable_side));
      return AddSources(*ref.right, nullable_side || ref.join_type == TableRef::JoinType::kLeft);
    }
    Leaf leaf;
    leaf.ref = &ref;
    leaf.pushable = !nullable_side;
    std::shared_ptr<arrow::Schema> schema;
    switch (ref.kind) {
      case TableRef::Kind::kTable: {
        ARROW_ASSIGN_OR_RAISE(auto system_table,
                              InformationSchemaTable(context_, ref.name, ref.time_travel));
        if (system_table) {
          leaf.qualifier = ref.alias.empty() ? AsciiLower(ref.name.parts[1]) : ref.alias;
          leaf.description = "information_schema." + AsciiLower(ref.name.parts[1]);
          schema = (*system_table)->schema();
          leaf.reader = std::make_shared<arrow::TableBatchReader>(*system_table);
          break;
        }
        ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context_, ref.name, ref.time_travel));
        leaf.qualifier = ref.alias.empty() ? pinned.location.table : ref.alias;
        leaf.description =
            Concat(pinned.location.Qualified(), " version ", pinned.snapshot->version());
        schema = pinned.snapshot->schema();
        leaf.table = std::move(pinned);
        break;
      }
      case TableRef::Kind::kFunction: {
        ARROW_ASSIGN_OR_RAISE(auto rows, OpenTableFunction(ref, context_));
        leaf.qualifier = ref.alias.empty() ? ref.function : ref.alias;
        leaf.description = rows.description;
        schema = rows.reader->schema();
        leaf.reader = std::move(rows.reader);
        break;
      }
      case TableRef::Kind::kSubquery: {
        if (ref.alias.empty()) {
          return SqlError(SqlCode::kDerivedTableAlias, ErrorKind::kInvalidArgument,
                          At(ref.position),
                          "Every derived table must have its own alias: (SELECT ...) AS name");
        }
        ARROW_ASSIGN_OR_RAISE(auto planned, PlanSelect(*ref.subquery, context_));
        for (auto& line : planned.explain)
          explain_.push_back("subquery " + ref.alias + ": " + line);
        auto names = planned.column_names;
        ARROW_ASSIGN_OR_RAISE(leaf.rows, RunQuery(std::move(planned)));
        // Columns are taken by position: display names of a subquery may repeat.
        arrow::FieldVector fields;
        for (int i = 0; i < leaf.rows->num_columns(); ++i) {
          fields.push_back(arrow::field("__c" + std::to_string(i), leaf.rows->column(i)->type()));
        }
        ARROW_ASSIGN_OR_RAISE(leaf.rows, leaf.rows->RenameColumns([&] {
          std::vector<std::string> renamed;
          for (const auto& field : fields) renamed.push_back(field->name());
          return renamed;
        }()));
        leaf.qualifier = ref.alias;
        leaf.description = "subquery " + ref.alias;
        for (int i = 0; i < leaf.rows->num_columns(); ++i) {
          PlanColumn column;
          column.qualifier = leaf.qualifier;
          column.name = names[i];
          column.source_name = fields[i]->name();
          column.leaf = static_cast<int>(leaves_.size());
          leaf.columns.push_back(static_cast<int>(columns_.size()));
          columns_.push_back(std::move(column));
        }
        return AddLeaf(std::move(leaf));
      }
      case TableRef::Kind::kJoin:
        break;
    }
    for (const auto& field : schema->fields()) {
      PlanColumn column;
      column.qualifier = leaf.qualifier;
      column.name = field->name();
      column.source_name = field->name();
      column.leaf = static_cast<int>(leaves_.size());
      leaf.columns.push_back(static_cast<int>(columns_.size()));
      columns_.push_back(std::move(column));
    }
    return AddLeaf(std::move(leaf));
  }

  arrow::Status AddLeaf(Leaf leaf) {
    for (const auto& other : leaves_) {
      if (SameName(other.qualifier, leaf.qualifier)) {
        return SqlError(SqlCode::kNonUniqueTable, ErrorKind::kInvalidArgument,
                        At(leaf.ref->position), "Not unique table/alias: '", leaf.qualifier,
                        "'; give one of them an alias");
      }
    }
    leaf_of_[leaf.ref] = static_cast<int>(leaves_.size());
    leaves_.push_back(std::move(leaf));
    return arrow::Status::OK();
  }

  // Field names: a column's own name when no other column has it, else qualifier.name.
  void AssignFields() {
    std::map<std::string, int> uses;
    for (const auto& column : columns_) ++uses[column.name];
    std::set<std::string> taken;
    for (auto& column : columns_) {
      std::string field =
          uses[column.name] == 1 ? column.name : column.qualifier + "." + column.name;
      for (int n = 2; taken.count(field) != 0; ++n)
        field = column.qualifier + "." + column.name + "#" + std::to_string(n);
      taken.insert(field);
      column.field = std::move(field);
    }
  }

  // --- names ---
  // The plan column `qualifier.name` refers to; marks it needed.
  arrow::Result<int> Lookup(const SyntaxNode& node, std::string_view clause) {
    if (!node.qualifier.empty()) {
      const bool known = std::any_of(leaves_.begin(), leaves_.end(), [&](const Leaf& leaf) {
        return SameName(leaf.qualifier, node.qualifier);
      });
      if (!known) {
        return SqlError(SqlCode::kUnknownColumn, ErrorKind::kInvalidArgument, At(node.position),
                        "Unknown column '", node.qualifier, ".", node.name, "' in '", clause,
                        "': no table or alias '", node.qualifier, "' in FROM");
      }
    }
    std::vector<int> exact;
    std::vector<int> folded;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const auto& column = columns_[i];
      if (!node.qualifier.empty() && !SameName(column.qualifier, node.qualifier)) continue;
      if (column.name == node.name) exact.push_back(static_cast<int>(i));
      if (SameName(column.name, node.name)) folded.push_back(static_cast<int>(i));
    }
    const auto& found = exact.empty() ? folded : exact;
    const std::string spelled =
        node.qualifier.empty() ? node.name : node.qualifier + "." + node.name;
    if (found.size() > 1) {
      return SqlError(SqlCode::kAmbiguousColumn, ErrorKind::kAmbiguous, At(node.position),
                      "Column '", spelled, "' in ", clause,
                      " is ambiguous; qualify it: ", columns_[found[0]].qualifier, ".", node.name,
                      " or ", columns_[found[1]].qualifier, ".", node.name);
    }
    if (found.empty()) {
      // The nearest names, suggested as they must be written: qualified where two sources
      // have the name.
      std::vector<std::string> names;
      for (const auto& column : columns_) names.push_back(column.name);
      std::vector<std::string> suggestions;
      for (const auto& near : expr::ClosestNames(node.name, names)) {
        std::vector<std::string> spellings;
        for (const auto& column : columns_) {
          if (column.name != near) continue;
          spellings.push_back(column.qualifier.empty() ? column.name
                                                       : column.qualifier + "." + column.name);
        }
        if (spellings.size() == 1) spellings = {near};
        for (auto& spelling : spellings) {
          if (std::find(suggestions.begin(), suggestions.end(), spelling) == suggestions.end())
            suggestions.push_back(std::move(spelling));
        }
      }
      const std::string hint = expr::DidYouMean(suggestions);
      return SqlError(SqlCode::kUnknownColumn, ErrorKind::kInvalidArgument, At(node.position),
                      "Unknown column '", spelled, "' in '", clause, "'",
                      hint.empty() ? "" : "; " + hint);
    }
    columns_[found[0]].needed = true;
    return found[0];
  }

  // A copy of `node` with every column reference resolved to its plan field. With
  // `aliases`, a bare name that no column has may name a select-list alias (HAVING).
  arrow::Result<SyntaxPtr> Resolve(const SyntaxNode& node, std::string_view clause,
                                   bool aliases = false) {
    if (node.kind == SyntaxKind::kColumn) {
      if (aliases && node.qualifier.empty()) {
        auto found = Lookup(node, clause);
        if (found.ok()) return MakeColumnReference(columns_[*found].field, node.position);
        for (const auto& output : outputs_) {
          if (SameName(output.display, node.name)) return CloneSyntax(*output.expression);
        }
        return found.status();
      }
      ARROW_ASSIGN_OR_RAISE(int index, Lookup(node, clause));
      return MakeColumnReference(columns_[index].field, node.position);
    }
    if (node.kind == SyntaxKind::kCall && !IsKnownFunctionName(node.name)) {
      return UnknownFunctionError(node, context_);
    }
    auto copy = CloneSyntax(node);
    copy->children.clear();
    for (const auto& child : node.children) {
      ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(*child, clause, aliases));
      copy->children.push_back(std::move(resolved));
    }
    return copy;
  }

  arrow::Status ExpandSelectList() {
    for (const auto& item : statement_.items) {
      if (!item.star) {
        OutputExpression output;
        ARROW_ASSIGN_OR_RAISE(output.expression, Resolve(*item.expression, "field list"));
        output.position = item.position;
        if (!item.alias.empty()) {
          output.display = item.alias;
        } else if (item.expression->kind == SyntaxKind::kColumn) {
          output.display = item.expression->name;
        } else {
          output.display = item.text;
        }
        outputs_.push_back(std::move(output));
        continue;
      }
      if (leaves_.empty()) {
        return SqlError(SqlCode::kNoTablesUsed, ErrorKind::kInvalidArgument, At(item.position),
                        "No tables used: SELECT * needs FROM");
      }
      bool any = false;
      for (auto& column : columns_) {
        if (!item.star_qualifier.empty() && !SameName(column.qualifier, item.star_qualifier)) {
          continue;
        }
        any = true;
        column.needed = true;
        OutputExpression output;
        output.expression = MakeColumnReference(column.field, item.position);
        output.display = column.name;
        output.position = item.position;
        outputs_.push_back(std::move(output));
      }
      if (!any) {
        return SqlError(SqlCode::kUnknownTableInQuery, ErrorKind::kInvalidArgument,
                        At(item.position), "Unknown table '", item.star_qualifier, "' in ",
                        item.star_qualifier, ".*");
      }
    }
    return arrow::Status::OK();
  }

  // --- WHERE: pushed to scans, or residual ---
  static void SplitConjuncts(const SyntaxNode& node, std::vector<const SyntaxNode*>* terms) {
    if (node.kind == SyntaxKind::kAnd) {
      for (const auto& child : node.children) SplitConjuncts(*child, terms);
      return;
    }
    terms->push_back(&node);
  }

  void CollectLeaves(const SyntaxNode& node, std::set<int>* leaves) const {
    if (node.kind == SyntaxKind::kColumn) {
      for (const auto& column : columns_) {
        if (column.field == node.name) leaves->insert(column.leaf);
      }
    }
    for (const auto& child : node.children) CollectLeaves(*child, leaves);
  }

  // `node` (resolved) with plan fields renamed to the leaf's own column names.
  SyntaxPtr ToSourceNames(const SyntaxNode& node) const {
    auto copy = CloneSyntax(node);
    RenameToSource(copy.get());
    return copy;
  }
  void RenameToSource(SyntaxNode* node) const {
    if (node->kind == SyntaxKind::kColumn) {
      for (const auto& column : columns_) {
        if (column.field == node->name) {
          node->name = column.source_name;
          break;
        }
      }
    }
    for (auto& child : node->children) RenameToSource(child.get());
  }

  arrow::Status ResolveWhere() {
    if (statement_.where == nullptr) return arrow::Status::OK();
    if (const SyntaxNode* aggregate = FindAggregate(*statement_.where)) {
      return SqlError(SqlCode::kInvalidGroupFunction, ErrorKind::kInvalidArgument,
                      At(aggregate->position),
                      "Invalid use of group function in WHERE; filter aggregates with HAVING");
    }
    std::vector<const SyntaxNode*> terms;
    SplitConjuncts(*statement_.where, &terms);
    for (const SyntaxNode* term : terms) {
      ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(*term, "where clause"));
      std::set<int> leaves;
      CollectLeaves(*resolved, &leaves);
      if (leaves.size() == 1) {
        Leaf& leaf = leaves_[*leaves.begin()];
        if (leaf.table && leaf.pushable) {
          leaf.pushed.push_back(ToSourceNames(*resolved));
          continue;
        }
      }
      residual_.push_back(std::move(resolved));
    }
    return arrow::Status::OK();
  }

  // The AND terms of every ON, resolved before any source is built, so that their columns are
  // read.
  arrow::Status ResolveJoinConditions(const TableRef& ref) {
    if (ref.kind != TableRef::Kind::kJoin) return arrow::Status::OK();
    RETURN_NOT_OK(ResolveJoinConditions(*ref.left));
    RETURN_NOT_OK(ResolveJoinConditions(*ref.right));
    if (const SyntaxNode* aggregate = FindAggregate(*ref.condition)) {
      return SqlError(SqlCode::kInvalidGroupFunction, ErrorKind::kInvalidArgument,
                      At(aggregate->position), "Invalid use of group function in ON");
    }
    std::vector<const SyntaxNode*> terms;
    SplitConjuncts(*ref.condition, &terms);
    auto& resolved_terms = join_terms_[&ref];
    for (const SyntaxNode* term : terms) {
      ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(*term, "on clause"));
      resolved_terms.push_back(std::move(resolved));
    }
    return arrow::Status::OK();
  }

  static SyntaxPtr Conjunction(std::vector<SyntaxPtr> terms) {
    if (terms.empty()) return nullptr;
    if (terms.size() == 1) return std::move(terms[0]);
    auto node = std::make_unique<SyntaxNode>();
    node->kind = SyntaxKind::kAnd;
    node->position = terms[0]->position;
    node->children = std::move(terms);
    return node;
  }
  SyntaxPtr CombinedResidual() { return Conjunction(std::move(residual_)); }

  // --- ORDER BY ---
  struct OrderKey {
    int output = -1;  // index into outputs_ (hidden keys are appended to outputs_)
    bool descending = false;
    bool nulls_first = false;
  };

  arrow::Status ResolveOrderBy() {
    visible_outputs_ = outputs_.size();
    for (const auto& item : statement_.order_by) {
      OrderKey key;
      key.descending = item.descending;
      key.nulls_first = item.nulls_first.value_or(!item.descending);  // MySQL: NULL is smallest
      const SyntaxNode& expression = *item.expression;
      if (expression.kind == SyntaxKind::kLiteral &&
          expression.literal.kind == expr::LiteralValue::Kind::kInteger) {
        const auto position = expression.literal.integer;
        if (position < 1 || position > static_cast<__int128>(visible_outputs_)) {
          return SqlError(
              SqlCode::kUnknownColumn, ErrorKind::kInvalidArgument, At(expression.position),
              "Unknown column '", static_cast<int64_t>(position),
              "' in 'order clause': the select list has ", visible_outputs_, " columns");
        }
        key.output = static_cast<int>(position) - 1;
      } else if (expression.kind == SyntaxKind::kColumn && expression.qualifier.empty()) {
        for (size_t i = 0; i < visible_outputs_; ++i) {
          if (SameName(outputs_[i].display, expression.name)) {
            // An alias or a selected column's name.
            key.output = static_cast<int>(i);
            break;
          }
        }
      }
      if (key.output < 0) {
        ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(expression, "order clause"));
        const std::string wanted = SyntaxKey(*resolved);
        for (size_t i = 0; i < visible_outputs_; ++i) {
          if (SyntaxKey(*outputs_[i].expression) == wanted) key.output = static_cast<int>(i);
        }
        if (key.output < 0) {
          if (statement_.distinct) {
            return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kInvalidArgument,
                            At(expression.position),
                            "with SELECT DISTINCT, ORDER BY expressions must appear in the "
                            "select list");
          }
          OutputExpression hidden;
          hidden.expression = std::move(resolved);
          hidden.display = "__order";
          hidden.position = expression.position;
          key.output = static_cast<int>(outputs_.size());
          outputs_.push_back(std::move(hidden));
        }
      }
      order_keys_.push_back(key);
    }
    return arrow::Status::OK();
  }

  // --- aggregation ---
  arrow::Result<bool> IsAggregateQuery() const {
    if (!statement_.group_by.empty() || statement_.having != nullptr) return true;
    for (const auto& output : outputs_) {
      if (ContainsAggregate(*output.expression)) return true;
    }
    return false;
  }

  // Replaces every aggregate call in `node` by a reference to its result field.
  arrow::Status ExtractAggregates(SyntaxPtr* node, bool inside_aggregate) {
    SyntaxNode& current = **node;
    if (IsAggregateCall(current)) {
      if (inside_aggregate) {
        return SqlError(SqlCode::kInvalidGroupFunction, ErrorKind::kInvalidArgument,
                        At(current.position),
                        "Invalid use of group function: aggregates cannot nest");
      }
      for (auto& child : current.children) RETURN_NOT_OK(ExtractAggregates(&child, true));
      if (current.star && current.name != "count") {
        return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, At(current.position),
                        current.name, "(*) is not an aggregate; only count(*)");
      }
      if (!current.star && current.children.size() != 1) {
        return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, At(current.position),
                        current.name, " takes one argument, got ", current.children.size());
      }
      if (current.distinct && current.name != "count") {
        return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported, At(current.position),
                        current.name, "(DISTINCT ...) is not supported; only count(DISTINCT ...)");
      }
      const std::string key = SyntaxKey(current);
      std::string field;
      for (const auto& call : aggregates_) {
        if (call.key == key) field = call.field;
      }
      if (field.empty()) {
        AggregateCall call;
        call.function = current.name;
        call.distinct = current.distinct;
        call.star = current.star;
        call.position = current.position;
        call.key = key;
        call.field = "__agg" + std::to_string(aggregates_.size());
        if (!current.star) {
          call.argument = std::move(current.children[0]);
          call.argument_field = "__arg" + std::to_string(aggregates_.size());
        }
        field = call.field;
        aggregates_.push_back(std::move(call));
      }
      *node = MakeColumnReference(field, current.position);
      return arrow::Status::OK();
    }
    for (auto& child : current.children) {
      RETURN_NOT_OK(ExtractAggregates(&child, inside_aggregate));
    }
    return arrow::Status::OK();
  }

  // Replaces group-key expressions by their key fields; any other column is an error.
  arrow::Status RewriteOverGroups(SyntaxPtr* node, std::string_view clause) {
    const std::string key = SyntaxKey(**node);
    for (size_t i = 0; i < group_keys_.size(); ++i) {
      if (group_keys_[i].first == key) {
        *node = MakeColumnReference(group_keys_[i].second, (*node)->position);
        return arrow::Status::OK();
      }
    }
    SyntaxNode& current = **node;
    if (current.kind == SyntaxKind::kColumn) {
      if (current.name.rfind("__agg", 0) == 0) return arrow::Status::OK();
      std::string display = current.name;
      return SqlError(SqlCode::kNotGrouped, ErrorKind::kInvalidArgument, At(current.position),
                      "column '", display, "' in the ", clause,
                      " is neither in GROUP BY nor inside an aggregate; add it to GROUP BY or "
                      "aggregate it (min, max, ...)");
    }
    for (auto& child : current.children) RETURN_NOT_OK(RewriteOverGroups(&child, clause));
    return arrow::Status::OK();
  }

  // GROUP BY n names the n-th select item; a bare name may be an alias.
  arrow::Status ResolveGroupKeys() {
    for (const auto& written : statement_.group_by) {
      SyntaxPtr resolved;
      if (written->kind == SyntaxKind::kLiteral &&
          written->literal.kind == expr::LiteralValue::Kind::kInteger) {
        const auto position = written->literal.integer;
        if (position < 1 || position > static_cast<__int128>(visible_outputs_)) {
          return SqlError(SqlCode::kUnknownColumn, ErrorKind::kInvalidArgument,
                          At(written->position), "Unknown column '", static_cast<int64_t>(position),
                          "' in 'group statement'");
        }
        resolved = CloneSyntax(*outputs_[static_cast<size_t>(position) - 1].expression);
      } else {
        ARROW_ASSIGN_OR_RAISE(resolved, Resolve(*written, "group statement", true));
      }
      resolved_group_by_.push_back(std::move(resolved));
    }
    return arrow::Status::OK();
  }

  arrow::Result<ac::Declaration> PlanAggregation(ac::Declaration input,
                                                 const std::shared_ptr<arrow::Schema>& schema,
                                                 SyntaxPtr* having) {
    std::vector<EvalOutput> pre;
    for (size_t i = 0; i < resolved_group_by_.size(); ++i) {
      SyntaxPtr resolved = std::move(resolved_group_by_[i]);
      if (const SyntaxNode* aggregate = FindAggregate(*resolved)) {
        return SqlError(SqlCode::kInvalidGroupFunction, ErrorKind::kInvalidArgument,
                        At(aggregate->position), "Can't group on an aggregate");
      }
      const std::string key = SyntaxKey(*resolved);
      if (std::any_of(group_keys_.begin(), group_keys_.end(),
                      [&](const auto& existing) { return existing.first == key; })) {
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto bound, expr::BindValue(*resolved, schema, context_.source()));
      // A column is its own key, unless it is floating-point (-0.0 becomes 0.0 first).
      const bool as_is =
          resolved->kind == SyntaxKind::kColumn && !arrow::is_floating(bound->type()->id());
      const std::string field =
          as_is ? resolved->name : "__key" + std::to_string(group_keys_.size());
      pre.push_back({field, std::move(bound), /*hashed=*/true});
      group_keys_.emplace_back(key, field);
    }
    for (auto& output : outputs_) RETURN_NOT_OK(ExtractAggregates(&output.expression, false));
    if (*having != nullptr) RETURN_NOT_OK(ExtractAggregates(having, false));
    for (const auto& call : aggregates_) {
      if (call.argument == nullptr) continue;
      ARROW_ASSIGN_OR_RAISE(auto bound, expr::BindValue(*call.argument, schema, context_.source()));
      pre.push_back({call.argument_field, std::move(bound), /*hashed=*/call.distinct});
    }
    ARROW_ASSIGN_OR_RAISE(auto where, BindPredicate(CombinedResidual(), schema));
    ac::Declaration evaluated = ac::Declaration::Sequence(
        {std::move(input),
         {EvalNodeOptions::kFactoryName, EvalNodeOptions(std::move(where), std::move(pre))}});

    const bool grouped = !group_keys_.empty();
    std::vector<cp::Aggregate> aggregates;
    for (const auto& call : aggregates_) {
      const std::string prefix = grouped ? "hash_" : "";
      if (call.star) {
        aggregates.emplace_back(prefix + "count_all", call.field);
        continue;
      }
      std::shared_ptr<cp::FunctionOptions> options;
      std::string function;
      if (call.function == "count") {
        function = call.distinct ? "count_distinct" : "count";
        options = std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID);
      } else {
        function = call.function == "avg" ? "mean" : call.function;
        options = std::make_shared<cp::ScalarAggregateOptions>(/*skip_nulls=*/true,
                                                               /*min_count=*/1);
      }
      aggregates.emplace_back(prefix + function, options, arrow::FieldRef(call.argument_field),
                              call.field);
    }
    std::vector<arrow::FieldRef> keys;
    for (const auto& [key, field] : group_keys_) keys.emplace_back(field);
    ac::Declaration aggregated = ac::Declaration::Sequence(
        {std::move(evaluated), {"aggregate", ac::AggregateNodeOptions(aggregates, keys)}});

    for (auto& output : outputs_) {
      RETURN_NOT_OK(RewriteOverGroups(
          &output.expression, output.display == "__order" ? "order clause" : "select list"));
    }
    if (*having != nullptr) RETURN_NOT_OK(RewriteOverGroups(having, "having clause"));
    return aggregated;
  }

  arrow::Result<expr::NodePtr> BindPredicate(SyntaxPtr predicate,
                                             const std::shared_ptr<arrow::Schema>& schema) {
    if (predicate == nullptr) return expr::NodePtr();
    return expr::Bind(*predicate, schema, context_.source());
  }

  // --- outputs, DISTINCT, ORDER BY ---
  arrow::Result<ac::Declaration> PlanOutputs(ac::Declaration input,
                                             const std::shared_ptr<arrow::Schema>& schema,
                                             SyntaxPtr predicate) {
    std::vector<EvalOutput> outputs;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto bound,
                            expr::BindValue(*outputs_[i].expression, schema, context_.source()));
      outputs.push_back({OutputField(i), std::move(bound), /*hashed=*/statement_.distinct});
    }
    ARROW_ASSIGN_OR_RAISE(auto bound_predicate, BindPredicate(std::move(predicate), schema));
    return ac::Declaration::Sequence(
        {std::move(input),
         {EvalNodeOptions::kFactoryName,
          EvalNodeOptions(std::move(bound_predicate), std::move(outputs))}});
  }

  arrow::Result<ac::Declaration> PlanDistinct(ac::Declaration input) {
    std::vector<arrow::FieldRef> keys;
    for (size_t i = 0; i < outputs_.size(); ++i) keys.emplace_back(OutputField(i));
    return ac::Declaration::Sequence(
        {std::move(input), {"aggregate", ac::AggregateNodeOptions({}, std::move(keys))}});
  }

// GCC 12 reports the variant inside arrow::FieldRef as maybe-uninitialized when SortKeys are
// copied into the node options, a known false positive of its variant analysis.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  ac::Declaration PlanOrder(ac::Declaration input) {
    std::vector<cp::SortKey> keys;
    for (const auto& key : order_keys_) {
      keys.emplace_back(arrow::FieldRef(OutputField(key.output)),
                        key.descending ? cp::SortOrder::Descending : cp::SortOrder::Ascending,
                        key.nulls_first ? cp::NullPlacement::AtStart : cp::NullPlacement::AtEnd);
    }
    return ac::Declaration::Sequence(
        {std::move(input), {"order_by", ac::OrderByNodeOptions(cp::Ordering(std::move(keys)))}});
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  // --- building FROM ---
  arrow::Result<ac::Declaration> BuildFrom() {
    if (statement_.from == nullptr) {
      // One row without columns the statement can name.
      auto one = arrow::RecordBatch::Make(
          arrow::schema({arrow::field("__one", arrow::int8())}), 1,
          {std::make_shared<arrow::Int8Array>(1, arrow::Buffer::FromString(std::string(1, '\1')))});
      ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches({one}));
      return ac::Declaration("table_source", ac::TableSourceNodeOptions(table));
    }
    return BuildRef(*statement_.from);
  }

  std::vector<std::string> FieldsUnder(const TableRef& ref) const {
    std::vector<std::string> fields;
    if (ref.kind == TableRef::Kind::kJoin) {
      fields = FieldsUnder(*ref.left);
      for (auto& field : FieldsUnder(*ref.right)) fields.push_back(std::move(field));
      return fields;
    }
    const Leaf& leaf = leaves_[leaf_of_.at(&ref)];
    for (int index : leaf.columns) {
      if (columns_[index].needed) fields.push_back(columns_[index].field);
    }
    return fields;
  }

  arrow::Result<ac::Declaration> BuildRef(const TableRef& ref) {
    if (ref.kind == TableRef::Kind::kJoin) return BuildJoin(ref);
    Leaf& leaf = leaves_[leaf_of_.at(&ref)];
    std::vector<std::string> source_names;
    std::vector<cp::Expression> projections;
    std::vector<std::string> fields;
    for (int index : leaf.columns) {
      const auto& column = columns_[index];
      if (!column.needed) continue;
      source_names.push_back(column.source_name);
      projections.push_back(cp::field_ref(column.source_name));
      fields.push_back(column.field);
    }
    ac::Declaration source;
    if (leaf.table) {
      dataset::ScanOptions options;
      // Nothing needed (count(*)): read the row addresses only, which costs no data file.
      options.columns = source_names.empty() ? std::vector<std::string>{"_rowaddr"} : source_names;
      std::string line = "scan " + leaf.description;
      if (!leaf.pushed.empty()) {
        auto predicate = Conjunction(std::move(leaf.pushed));
        ARROW_ASSIGN_OR_RAISE(
            auto bound, expr::Bind(*predicate, leaf.table->snapshot->schema(), context_.source()));
        options.filter = bound->ToString();
        line += " where " + options.filter;
      }
      if (limit_pushdown_) {
        options.limit = statement_.offset + *statement_.limit;
        line += Concat(" limit ", *options.limit);
      }
      explain_.push_back(line);
      query::Explain explain;
      ARROW_ASSIGN_OR_RAISE(auto reader, query::Read(leaf.table->snapshot, options, &explain));
      for (auto& plan_line : explain.lines) explain_.push_back("  " + plan_line);
      source = ac::Declaration(
          "record_batch_reader_source",
          ac::RecordBatchReaderSourceNodeOptions(Cancellable(std::move(reader)), SourceExecutor()));
    } else if (leaf.reader != nullptr) {
      // Multi-line descriptions (a search's plan) become indented explain lines.
      size_t start = 0;
      std::string prefix = "read ";
      while (start <= leaf.description.size()) {
        const size_t end = std::min(leaf.description.find('\n', start), leaf.description.size());
        explain_.push_back(prefix + leaf.description.substr(start, end - start));
        prefix.clear();
        start = end + 1;
      }
      source = ac::Declaration(
          "record_batch_reader_source",
          ac::RecordBatchReaderSourceNodeOptions(Cancellable(leaf.reader), SourceExecutor()));
    } else {
      source = ac::Declaration("table_source", ac::TableSourceNodeOptions(leaf.rows));
    }
    return ac::Declaration::Sequence(
        {std::move(source), {"project", ac::ProjectNodeOptions(projections, fields)}});
  }

  // The threads that pull the sources' readers: one per source, of the plan's own. Acero's
  // default is the process's I/O pool (8 threads), and a scan's reader waits on work it queues
  // to that same pool, so 8 blocked sources (a join of 8 tables) would wait forever.
  arrow::internal::Executor* SourceExecutor() {
    if (source_pool_ == nullptr) {
      source_pool_ =
          arrow::internal::ThreadPool::Make(std::max<int>(1, static_cast<int>(leaves_.size())))
              .ValueOrDie();
    }
    return source_pool_.get();
  }

  arrow::Result<ac::Declaration> BuildJoin(const TableRef& join) {
    ARROW_ASSIGN_OR_RAISE(auto left, BuildRef(*join.left));
    ARROW_ASSIGN_OR_RAISE(auto right, BuildRef(*join.right));
    const auto left_fields = FieldsUnder(*join.left);
    const auto right_fields = FieldsUnder(*join.right);
    auto is_in = [](const std::vector<std::string>& fields, const std::string& name) {
      return std::find(fields.begin(), fields.end(), name) != fields.end();
    };
    std::vector<arrow::FieldRef> left_keys;
    std::vector<arrow::FieldRef> right_keys;
    std::vector<SyntaxPtr> rest;
    ARROW_ASSIGN_OR_RAISE(auto left_schema, ac::DeclarationToSchema(left));
    ARROW_ASSIGN_OR_RAISE(auto right_schema, ac::DeclarationToSchema(right));
    for (auto& resolved : join_terms_[&join]) {
      if (resolved->kind == SyntaxKind::kCompare && resolved->op == expr::CompareOp::kEqual &&
          resolved->children[0]->kind == SyntaxKind::kColumn &&
          resolved->children[1]->kind == SyntaxKind::kColumn) {
        std::string a = resolved->children[0]->name;
        std::string b = resolved->children[1]->name;
        if (is_in(right_fields, a) && is_in(left_fields, b)) std::swap(a, b);
        if (is_in(left_fields, a) && is_in(right_fields, b)) {
          const auto left_type = left_schema->GetFieldByName(a)->type();
          const auto right_type = right_schema->GetFieldByName(b)->type();
          if (!left_type->Equals(*right_type)) {
            return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported,
                            At(resolved->position), "join keys '", a, "' (", left_type->ToString(),
                            ") and '", b, "' (", right_type->ToString(),
                            ") differ in type; CAST one of them in a subquery");
          }
          left_keys.emplace_back(a);
          right_keys.emplace_back(b);
          continue;
        }
      }
      rest.push_back(std::move(resolved));
    }
    if (left_keys.empty()) {
      return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported, At(join.position),
                      "a join needs at least one equality between a column of each side in ON "
                      "(a.x = b.y); other joins are not supported");
    }
    if (!rest.empty() && join.join_type == TableRef::JoinType::kLeft) {
      return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported, At(rest[0]->position),
                      "LEFT JOIN ... ON supports equalities between the two sides only; move "
                      "other conditions into a subquery");
    }
    std::vector<arrow::FieldRef> left_output(left_fields.begin(), left_fields.end());
    std::vector<arrow::FieldRef> right_output(right_fields.begin(), right_fields.end());
    ac::HashJoinNodeOptions options(join.join_type == TableRef::JoinType::kLeft
                                        ? ac::JoinType::LEFT_OUTER
                                        : ac::JoinType::INNER,
                                    left_keys, right_keys, left_output, right_output);
    ac::Declaration joined("hashjoin", {std::move(left), std::move(right)}, std::move(options));
    if (rest.empty()) return joined;
    // The rest of ON, for an inner join, filters the joined rows.
    ARROW_ASSIGN_OR_RAISE(auto schema, ac::DeclarationToSchema(joined));
    ARROW_ASSIGN_OR_RAISE(auto predicate, BindPredicate(Conjunction(std::move(rest)), schema));
    std::vector<EvalOutput> pass;
    for (const auto& field : schema->fields()) {
      ARROW_ASSIGN_OR_RAISE(
          auto column, expr::BindValue(*MakeColumnReference(field->name(), join.position), schema,
                                       context_.source()));
      pass.push_back({field->name(), std::move(column)});
    }
    return ac::Declaration::Sequence(
        {std::move(joined),
         {EvalNodeOptions::kFactoryName, EvalNodeOptions(std::move(predicate), std::move(pass))}});
  }

  const SelectStatement& statement_;
  const ExecutionContext& context_;
  std::vector<Leaf> leaves_;
  std::map<const TableRef*, int> leaf_of_;
  std::vector<PlanColumn> columns_;
  std::vector<OutputExpression> outputs_;  // the select list, then hidden ORDER BY keys
  size_t visible_outputs_ = 0;
  std::vector<SyntaxPtr> residual_;
  std::vector<SyntaxPtr> resolved_group_by_;  // parallel to statement_.group_by
  std::map<const TableRef*, std::vector<SyntaxPtr>> join_terms_;
  std::vector<OrderKey> order_keys_;
  std::vector<AggregateCall> aggregates_;
  std::vector<std::pair<std::string, std::string>> group_keys_;  // (SyntaxKey, field)
  std::vector<std::string> explain_;
  bool limit_pushdown_ = false;
  std::shared_ptr<arrow::internal::ThreadPool> source_pool_;
};

}  // namespace

arrow::Result<PlannedQuery> PlanSelect(const SelectStatement& statement,
                                       const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto planned, Planner(statement, context).Plan());
  planned.memory_limit = context.memory_limit;
  return planned;
}

namespace {

// The rows of a running plan with OFFSET / LIMIT applied and the display names; it keeps the
// plan's snapshots alive, and stops the plan once the limit is reached.
class QueryRows : public arrow::RecordBatchReader {
 public:
  QueryRows(std::unique_ptr<arrow::RecordBatchReader> plan, std::shared_ptr<arrow::Schema> schema,
            PlannedQuery query)
      : source_pool_(std::move(query.source_pool)),
        snapshots_(std::move(query.snapshots)),
        plan_(std::move(plan)),
        schema_(std::move(schema)),
        to_skip_(query.offset),
        to_take_(query.limit) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (!to_take_ || *to_take_ > 0) {
      std::shared_ptr<arrow::RecordBatch> batch;
      RETURN_NOT_OK(plan_->ReadNext(&batch));
      if (batch == nullptr) return arrow::Status::OK();
      uint64_t rows = static_cast<uint64_t>(batch->num_rows());
      if (to_skip_ >= rows) {
        to_skip_ -= rows;
        continue;
      }
      batch = batch->Slice(static_cast<int64_t>(to_skip_));
      rows -= to_skip_;
      to_skip_ = 0;
      if (to_take_) {
        if (rows > *to_take_) batch = batch->Slice(0, static_cast<int64_t>(*to_take_));
        *to_take_ -= static_cast<uint64_t>(batch->num_rows());
      }
      if (batch->num_rows() == 0) continue;
      *out = arrow::RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
      return arrow::Status::OK();
    }
    return arrow::Status::OK();
  }

  arrow::Status Close() override { return plan_->Close(); }

 private:
  // Declared first, so destroyed last: the plan's destructor waits for its sources, which run
  // on this pool and read these snapshots.
  std::shared_ptr<arrow::internal::ThreadPool> source_pool_;
  std::vector<std::shared_ptr<const query::Snapshot>> snapshots_;
  std::unique_ptr<arrow::RecordBatchReader> plan_;
  std::shared_ptr<arrow::Schema> schema_;
  uint64_t to_skip_;
  std::optional<uint64_t> to_take_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> StartQuery(PlannedQuery query) {
  ARROW_ASSIGN_OR_RAISE(auto plan_schema, ac::DeclarationToSchema(query.declaration));
  arrow::FieldVector fields;
  for (int i = 0; i < plan_schema->num_fields(); ++i) {
    fields.push_back(plan_schema->field(i)->WithName(query.column_names[i]));
  }
  arrow::MemoryPool* pool = query.memory_limit != nullptr
                                ? static_cast<arrow::MemoryPool*>(query.memory_limit)
                                : arrow::default_memory_pool();
  ARROW_ASSIGN_OR_RAISE(auto plan, ac::DeclarationToReader(std::move(query.declaration),
                                                           /*use_threads=*/false, pool));
  return std::make_shared<QueryRows>(std::move(plan), arrow::schema(std::move(fields)),
                                     std::move(query));
}

arrow::Result<std::shared_ptr<arrow::Table>> RunQuery(PlannedQuery query) {
  util::LimitedMemoryPool* limit = query.memory_limit;
  ARROW_ASSIGN_OR_RAISE(auto rows, StartQuery(std::move(query)));
  arrow::RecordBatchVector batches;
  while (true) {
    // A cancellation (util/operation_control.h: the server's KILL QUERY) ends a read between
    // batches; a read commits nothing, so it may stop anywhere.
    RETURN_NOT_OK(util::CheckCancelled());
    std::shared_ptr<arrow::RecordBatch> batch;
    RETURN_NOT_OK(rows->ReadNext(&batch));
    if (batch == nullptr) break;
    if (limit != nullptr) {
      // The bytes the rows refer to (a slice counts its part of a shared buffer only).
      ARROW_ASSIGN_OR_RAISE(const int64_t bytes, arrow::util::ReferencedBufferSize(*batch));
      RETURN_NOT_OK(limit->Charge(bytes));
    }
    batches.push_back(std::move(batch));
  }
  RETURN_NOT_OK(rows->Close());
  return arrow::Table::FromRecordBatches(rows->schema(), std::move(batches));
}

}  // namespace tessera::sql
