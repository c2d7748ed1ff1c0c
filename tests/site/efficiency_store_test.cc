// A run's telemetry at run level: its best tokens per joule (the server's GPUs only, valid
// decode cells only), whose GPUs were read, and its throttling — worked out by summarize_run,
// stored and listed by the store (SQLite, and PostgreSQL under tests/site/pg_store_test.sh),
// ranked by efficiency, and added to an older database by migration 3.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <limits>

#include "result/result_json.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/migrations.h"
#include "store/postgres_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "store/run_telemetry.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"

namespace sm::store {
namespace {

RunResult with_telemetry(const std::string& id, double base_tokens_per_joule, bool client_side_only = false,
                         const std::string& gpu = "NVIDIA GeForce RTX 3090") {
  RunResult r = test::site_result(id, "M1", gpu);
  test::add_gpu_telemetry(r, base_tokens_per_joule, client_side_only);
  return r;
}

RunRecord record_of(const RunResult& r, const std::string& uploaded_at) {
  RunRecord rec;
  rec.summary = summarize_run(r);
  rec.summary.uploaded_at = uploaded_at;
  rec.result_json = to_json(r).dump();
  rec.content_sha256 = site::sha256_hex(rec.result_json);
  return rec;
}

std::string ids(const RunPage& page) {
  std::string out;
  for (const auto& s : page.runs) out += (out.empty() ? "" : ",") + s.run_id;
  return out;
}

TEST(RunTelemetrySummary, BestTokensPerJouleIsAValidDecodeCellsOfTheServersGpus) {
  RunResult r = with_telemetry("r", 2.0);
  RunTelemetry t = summarize_run_telemetry(r);
  EXPECT_EQ(t.scope, GpuTelemetryScope::Server);
  EXPECT_EQ(t.best_tokens_per_joule, 2.0 * 1.7);  // 16K × 2; the prefill row's 40 is another quantity
  EXPECT_EQ(t.best_tokens_per_joule_context, 16384);
  EXPECT_EQ(t.best_tokens_per_joule_concurrency, 2);

  // A cell that is not valid does not count, however efficient it looked; nor one without the figure.
  r.decode[3].status = CellStatus::Error;
  r.decode[3].telemetry.tokens_per_joule = 99.0;
  r.decode[1].telemetry.tokens_per_joule.reset();
  t = summarize_run_telemetry(r);
  EXPECT_EQ(t.best_tokens_per_joule, 2.0);
  EXPECT_EQ(t.best_tokens_per_joule_context, 0);
  EXPECT_EQ(t.best_tokens_per_joule_concurrency, 1);
  r.decode[0].telemetry.tokens_per_joule = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(summarize_run_telemetry(r).best_tokens_per_joule, 2.0 * 0.8);
}

TEST(RunTelemetrySummary, ReadingsOfAnotherMachinesGpusAreNoEfficiencyFigure) {
  RunResult client = with_telemetry("c", 5.0, /*client_side_only=*/true);
  RunTelemetry t = summarize_run_telemetry(client);
  EXPECT_EQ(t.scope, GpuTelemetryScope::ClientSideOnly);
  EXPECT_FALSE(t.best_tokens_per_joule);
  EXPECT_EQ(t.worst_throttle, "ok");  // the client's verdicts are still there for its page

  // A server on another machine whose hardware was declared: this machine's GPUs are not its.
  RunResult declared = with_telemetry("d", 5.0);
  declared.hardware.source = HardwareSource::Declared;
  EXPECT_EQ(gpu_telemetry_scope(declared), GpuTelemetryScope::ClientSideOnly);
  RunResult simulated = with_telemetry("s", 5.0);
  simulated.hardware.source = HardwareSource::Simulated;
  EXPECT_EQ(gpu_telemetry_scope(simulated), GpuTelemetryScope::ClientSideOnly);

  RunSummary s = summarize_run(client);
  EXPECT_EQ(s.gpu_telemetry, "client_side_only");
  EXPECT_FALSE(s.best_tokens_per_joule);
  EXPECT_EQ(s.throttle_worst, "");  // lists show no verdict for a client's GPUs
  EXPECT_FALSE(s.throttled_cells);

  RunResult none = test::site_result("n");
  EXPECT_EQ(gpu_telemetry_scope(none), GpuTelemetryScope::None);
  none.telemetry = TelemetryInfo{};
  none.telemetry->gpu_unavailable = "libnvidia-ml.so.1: cannot open shared object file";
  EXPECT_EQ(gpu_telemetry_scope(none), GpuTelemetryScope::None);
  EXPECT_EQ(summarize_run(none).gpu_telemetry, "");
}

TEST(RunTelemetrySummary, TheWorstVerdictOfTheValidCellsAndEveryThrottledOneNamed) {
  EXPECT_LT(throttle_severity(""), throttle_severity("ok"));
  EXPECT_LT(throttle_severity("ok"), throttle_severity("clocks_below_max"));
  EXPECT_LT(throttle_severity("clocks_below_max"), throttle_severity("power_capped"));
  EXPECT_LT(throttle_severity("power_capped"), throttle_severity("hw_slowdown"));
  EXPECT_LT(throttle_severity("hw_slowdown"), throttle_severity("thermal"));  // docs/METRICS.md: most serious

  RunResult r = with_telemetry("r", 2.0);
  r.decode[1].telemetry.throttle = "power_capped";
  r.decode[2].telemetry.throttle = "";            // no verdict: neither ok nor throttled
  r.decode[3].status = CellStatus::Interrupted;   // not valid: not counted
  r.decode[3].telemetry.throttle = "hw_slowdown";
  r.prefill[0].telemetry.throttle = "thermal";
  RunTelemetry t = summarize_run_telemetry(r);
  EXPECT_EQ(t.worst_throttle, "thermal");
  EXPECT_EQ(t.measurements_with_verdict, 3);
  ASSERT_EQ(t.throttled.size(), 2u);
  EXPECT_FALSE(t.throttled[0].prefill);
  EXPECT_EQ(t.throttled[0].context, 0);
  EXPECT_EQ(t.throttled[0].concurrency, 2);
  EXPECT_EQ(t.throttled[0].verdict, "power_capped");
  EXPECT_TRUE(t.throttled[1].prefill);
  EXPECT_EQ(t.throttled[1].context, 32768);
  EXPECT_EQ(t.throttled[1].verdict, "thermal");
  RunSummary s = summarize_run(r);
  EXPECT_EQ(s.throttle_worst, "thermal");
  EXPECT_EQ(s.throttled_cells, 2);
}

class EfficiencyStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      const char* pg = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
      if (!pg) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      dsn_ = pg;
      auto c = open_postgres_connection(dsn_);
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations"})
        ASSERT_TRUE((*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {}));
    } else {
      dsn_ = "sqlite:" + dir_.file("results.db");
    }
  }

  void open() {
    store_.reset();
    auto s = open_store(dsn_);
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
  }

  Result<std::unique_ptr<SqlConnection>> connect() {
    if (GetParam() == "postgres") return open_postgres_connection(dsn_);
    return open_sqlite_connection(dir_.file("results.db"), SqliteSync::Normal);
  }

  test::TempDir dir_;
  std::string dsn_;
  std::unique_ptr<ResultStore> store_;
};

TEST_P(EfficiencyStoreTest, SummaryTelemetryFieldsRoundTrip) {
  open();
  RunResult r = with_telemetry("tel", 2.25);
  r.decode[0].telemetry.throttle = "power_capped";
  ASSERT_TRUE(store_->put_run(record_of(r, "2026-12-03T10:00:00.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(with_telemetry("client", 9.0, true), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("none"), "2026-12-03T10:00:02.000Z")));

  auto got = store_->get_run_summary("tel");
  ASSERT_TRUE(got && *got) << (got ? "" : got.error().message);
  EXPECT_EQ((*got)->best_tokens_per_joule, 2.25 * 1.7);
  EXPECT_EQ((*got)->best_tokens_per_joule_context, 16384);
  EXPECT_EQ((*got)->best_tokens_per_joule_concurrency, 2);
  EXPECT_EQ((*got)->gpu_telemetry, "server");
  EXPECT_EQ((*got)->throttle_worst, "power_capped");
  EXPECT_EQ((*got)->throttled_cells, 1);
  EXPECT_EQ((*got)->valid_cells, 4);  // the columns before the new ones still read right

  got = store_->get_run_summary("client");
  ASSERT_TRUE(got && *got);
  EXPECT_FALSE((*got)->best_tokens_per_joule);
  EXPECT_FALSE((*got)->best_tokens_per_joule_context);
  EXPECT_EQ((*got)->gpu_telemetry, "client_side_only");
  EXPECT_EQ((*got)->throttle_worst, "");
  EXPECT_FALSE((*got)->throttled_cells);

  got = store_->get_run_summary("none");
  ASSERT_TRUE(got && *got);
  EXPECT_FALSE((*got)->best_tokens_per_joule);
  EXPECT_EQ((*got)->gpu_telemetry, "");
  EXPECT_EQ((*got)->throttle_worst, "");
  EXPECT_FALSE((*got)->throttled_cells);
}

TEST_P(EfficiencyStoreTest, RanksByTokensPerJouleHighestFirstAndLeavesOutRunsWithoutTheFigure) {
  open();
  ASSERT_TRUE(store_->put_run(record_of(with_telemetry("low", 1.0), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(with_telemetry("high", 2.0, false, "NVIDIA H100"), "2026-12-03T10:00:02.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("none"), "2026-12-03T10:00:03.000Z")));
  // The client's GPUs at 10× the figure: the most "efficient" on paper, never ranked.
  ASSERT_TRUE(store_->put_run(record_of(with_telemetry("client", 10.0, true), "2026-12-03T10:00:04.000Z")));

  // A plain listing keeps every run: those without the figure last, newest first among them.
  auto listed = store_->list_runs({}, RunOrder::TokensPerJoule, {});
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_EQ(ids(*listed), "high,low,client,none");
  EXPECT_EQ(listed->total, 4);

  // The ranking leaves them out, and counts only what it ranks.
  RunFilter ranked;
  ranked.known_hardware_only = true;
  ranked.with_tokens_per_joule_only = true;
  auto board = store_->list_runs(ranked, RunOrder::TokensPerJoule, {});
  ASSERT_TRUE(board) << board.error().message;
  EXPECT_EQ(ids(*board), "high,low");
  EXPECT_EQ(board->total, 2);
  board = store_->list_runs(ranked, RunOrder::TokensPerJoule, {.limit = 1, .offset = 1});
  EXPECT_EQ(ids(*board), "low");
  ranked.gpu = "RTX 3090 24GB";
  EXPECT_EQ(ids(store_->list_runs(ranked, RunOrder::TokensPerJoule, {}).value()), "low");

  // Per GPU and per model: the best figure, which the client's run does not raise.
  auto hw = store_->hardware_summary();
  ASSERT_TRUE(hw) << hw.error().message;
  ASSERT_EQ(hw->size(), 2u);
  EXPECT_EQ((*hw)[0].name, "H100 24GB");
  EXPECT_EQ((*hw)[0].best_tokens_per_joule, 2.0 * 1.7);
  EXPECT_EQ((*hw)[1].name, "RTX 3090 24GB");
  EXPECT_EQ((*hw)[1].best_tokens_per_joule, 1.0 * 1.7);
  auto models = store_->model_summary();
  ASSERT_TRUE(models) << models.error().message;
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name, "M1");
  EXPECT_EQ((*models)[0].best_tokens_per_joule, 2.0 * 1.7);
  EXPECT_FALSE((*models)[1].best_tokens_per_joule);  // "none"'s model: no figure
}

// A database made by a build that knew migrations 1 and 2, holding one run: opening it applies
// migration 3 once; the old run reads as "no telemetry" and sorts after the runs that have it.
TEST_P(EfficiencyStoreTest, MigrationThreeUpgradesAnOlderDatabaseOnce) {
  {
    auto c = connect();
    ASSERT_TRUE(c) << c.error().message;
    SqlConnection& db = **c;
    ASSERT_TRUE(db.execute("CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
                           "applied_at TEXT NOT NULL)",
                           {}));
    for (const Migration& m : migrations()) {
      if (m.version > 2) break;
      const auto& statements =
          db.dialect() == SqlDialect::Postgres && !m.postgres_statements.empty() ? m.postgres_statements : m.statements;
      for (std::string_view sql : statements) ASSERT_TRUE(db.execute(sql, {})) << sql;
      const std::array<SqlParam, 3> row = {m.version, std::string(m.description), std::string("2026-11-01T00:00:00Z")};
      ASSERT_TRUE(db.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)", row));
    }
    const std::array<SqlParam, 21> old_run = {std::string("old"), std::string("measured"), std::string("RTX 3090 24GB"),
                                              std::string("M1"), std::string("vllm"), std::string("0.32.0"),
                                              std::string("AWQ 4-bit"), std::string(""), std::string("2026-11-01T00:00:00Z"),
                                              std::string("2026-11-01T00:00:01.000Z"), nullptr, 180.0, int64_t{0},
                                              324.0, int64_t{0}, int64_t{2}, 8783.0, int64_t{4}, int64_t{4},
                                              std::string("hash"), std::string("{}")};
    ASSERT_TRUE(db.execute(
        "INSERT INTO runs (run_id, kind, gpu, model, engine, engine_version, quantization, submitted_by, started_at, "
        "uploaded_at, token_id, single_stream_tok_s, single_stream_context, best_total_tok_s, best_total_context, "
        "best_total_concurrency, prefill_32k_tok_s, valid_cells, decode_cells, content_sha256, result_json) VALUES "
        "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
        old_run));
  }
  open();
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  auto old = store_->get_run_summary("old");
  ASSERT_TRUE(old && *old) << (old ? "" : old.error().message);
  EXPECT_EQ((*old)->best_total_tok_s, 324.0);
  EXPECT_FALSE((*old)->best_tokens_per_joule);
  EXPECT_EQ((*old)->gpu_telemetry, "");
  EXPECT_EQ((*old)->throttle_worst, "");
  EXPECT_FALSE((*old)->throttled_cells);
  // Migration 4 too: unmatched, plausible, visible.
  EXPECT_EQ((*old)->calc_gpu, "");
  EXPECT_EQ((*old)->implausible, "");
  EXPECT_FALSE((*old)->hidden);

  ASSERT_TRUE(store_->put_run(record_of(with_telemetry("new", 1.0), "2026-12-03T10:00:00.000Z")));
  EXPECT_EQ(ids(store_->list_runs({}, RunOrder::TokensPerJoule, {}).value()), "new,old");

  open();  // a second open applies nothing
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  auto c = connect();
  ASSERT_TRUE(c);
  auto rows = (*c)->query("SELECT COUNT(*) FROM schema_migrations WHERE version = 3", {});
  ASSERT_TRUE(rows && !rows->empty());
  EXPECT_EQ(rows->front().integer(0), 1);
  EXPECT_EQ(store_->get_run_summary("new").value()->gpu_telemetry, "server");
}

INSTANTIATE_TEST_SUITE_P(Backends, EfficiencyStoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

}  // namespace
}  // namespace sm::store
