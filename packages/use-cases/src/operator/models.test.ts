import { createTestDatabase, seedCogModel, type TestDatabase } from "@svc/testkit";
import { changeModel } from "./models.js";

// An operator's change of a model, with its audit entry, against the real Postgres.
describe("an operator's change of a model", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("when a model whose key is sealed is changed, then the audit entry says the key is sealed and never carries it", async () => {
    await seedCogModel(database.db, "ops/sealed", ["http://127.0.0.1:1"]);
    await database.db.model.update({
      where: { id: "ops/sealed" },
      data: {
        runner: {
          kind: "openai",
          servers: ["http://127.0.0.1:1"],
          model: "flux",
          api: "images",
          api_key_enc: "v1.c2VhbGVk.c2VjcmV0",
        },
      },
    });
    const changed = await changeModel(
      database.db,
      { actor: { id: "usr_ops", email: "ops@example.com" }, reason: "more capacity" },
      "ops/sealed",
      { concurrency: 2 },
    );
    expect(changed.kind).toBe("changed");
    const entry = await database.db.auditEntry.findFirstOrThrow({ where: { targetId: "ops/sealed" } });
    const text = JSON.stringify([entry.before, entry.after]);
    expect(text).not.toContain("c2VjcmV0");
    expect(text).not.toContain("api_key_enc");
    expect(entry.after).toMatchObject({ runner: { api_key: "(sealed)", concurrency: 2 } });
  });
});
