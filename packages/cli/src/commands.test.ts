import { cogUploadToken, hashApiKey } from "@svc/core";
import { ledgerTotals, loadCatalogue, seedCatalogue } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { importBody, IMPORTERS, signIn } from "@svc/use-cases";
import { USAGE, UsageError, runCommand } from "./commands.js";

describe("svc admin commands", () => {
  let database: TestDatabase;
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    await runCommand(database.db, argv, (l) => lines.push(l), { API_KEYS_PER_MODE_MAX: 3 });
    return lines;
  };
  const json = async (...argv: string[]) => (await run(...argv, "--json")).map((l) => JSON.parse(l));

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it("when an account is created with tokens, then its balance and ledger agree", async () => {
    const [{ id }] = await json("accounts", "create", "--name", "acme", "--tokens", "500");
    expect(id).toMatch(/^acct_/);
    await run("tokens", "grant", "--account", id, "--amount", "250");
    const totals = await ledgerTotals(database.db, id);
    expect(totals.cached).toEqual({ balance: 750, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
  });

  it("when a key is created with an expiry and models, then the list shows both; a past time or an unknown model is refused", async () => {
    await seedCatalogue(database.db, await loadCatalogue());
    const [{ id: accountId }] = await json("accounts", "create", "--name", "scoped keys");
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const create = (...extra: string[]) =>
      run("keys", "create", "--account", accountId, "--mode", "live", ...extra);
    const [created] = await create("--expires-at", until, "--models", "acme/echo, acme/pixel-hq");
    const id = created!.match(/key (key_\S+)/)![1]!;
    const stored = await database.db.apiKey.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      expiresAt: new Date(until),
      allowedModels: ["acme/echo", "acme/pixel-hq"],
    });
    const listed = (await run("keys", "list", "--account", accountId)).find((l) => l.startsWith(id))!;
    expect(listed).toContain(`active until ${until}`);
    expect(listed).toContain("models acme/echo,acme/pixel-hq");
    await expect(create("--expires-at", "2001-01-01T00:00:00Z")).rejects.toThrow(/in the future/);
    await expect(create("--expires-at", "soon")).rejects.toThrow(/ISO 8601/);
    await expect(create("--models", "acme/echo,nobody/nothing")).rejects.toThrow(/no model nobody\/nothing/);
    await expect(create("--budget", "500")).rejects.toThrow(/--budget: expected <tokens>\/day\|month\|total/);
    await expect(create("--budget", "0/day")).rejects.toThrow(/budget/);
    expect(await database.db.apiKey.count({ where: { accountId } })).toBe(1);
    const [budgeted] = await create("--budget", "500/month", "--max-concurrent-runs", "2");
    const budgetedId = budgeted!.match(/key (key_\S+)/)![1]!;
    expect(await database.db.apiKey.findUniqueOrThrow({ where: { id: budgetedId } })).toMatchObject({
      budgetTokens: 500,
      budgetPeriod: "month",
      budgetUsed: 0,
      maxConcurrentRuns: 2,
    });
    const line = (await run("keys", "list", "--account", accountId)).find((l) => l.startsWith(budgetedId))!;
    expect(line).toContain("budget 0/500 per month");
    expect(line).toContain("max 2 at once");
  });

  it("when a key is created, then the full key is printed once and only its hash is stored", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "keys");
    const [{ id, key }] = await json(
      "keys",
      "create",
      "--account",
      accountId,
      "--mode",
      "test",
      "--name",
      "ci",
    );
    expect(key).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    const stored = await database.db.apiKey.findUniqueOrThrow({ where: { id } });
    expect(stored.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(stored)).not.toContain(key.slice(9));
    const listed = (await run("keys", "list", "--account", accountId)).join("\n");
    expect(listed).toContain(id);
    expect(listed).not.toContain(key.slice(9));
  });

  it("when a key is revoked, then the list shows it revoked", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "revoke");
    const [{ id }] = await json("keys", "create", "--account", accountId, "--mode", "live");
    await run("keys", "revoke", id);
    expect((await run("keys", "list", "--account", accountId))[0]).toMatch(/revoked/);
  });

  it("when an account holds API_KEYS_PER_MODE_MAX active keys of a mode, then one more is refused until one is revoked", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "capped");
    const create = (mode: string) => json("keys", "create", "--account", accountId, "--mode", mode);
    const made = [await create("test"), await create("test"), await create("test")];
    await expect(create("test")).rejects.toThrow(/already has 3 active test keys/);
    // The other mode has its own room.
    await create("live");
    await run("keys", "revoke", made[0]![0].id);
    await create("test");
    expect(await database.db.apiKey.count({ where: { accountId, mode: "test", revokedAt: null } })).toBe(3);
  });

  it("when demo runs again and again, then one demo account exists, each run prints new keys and the previous ones are revoked", async () => {
    const [first] = await json("demo");
    let second = first;
    // More runs than the key cap (3 here): the demo never runs out of room.
    for (let i = 0; i < 4; i++) [second] = await json("demo");
    expect(second.account).toBe(first.account);
    expect(second.balance).toBe(10000);
    expect(second.live_key).not.toBe(first.live_key);
    expect(second.live_key).toMatch(/^svc_live_/);
    expect(second.test_key).toMatch(/^svc_test_/);
    expect(await database.db.account.count({ where: { name: "demo" } })).toBe(1);
    const active = await database.db.apiKey.findMany({
      where: { accountId: first.account, revokedAt: null },
    });
    expect(active.map((k) => k.hash).sort()).toEqual(
      [hashApiKey(second.live_key), hashApiKey(second.test_key)].sort(),
    );
  });

  it("when demo runs, then its owner user can sign in with the password printed, and the previous one stops working", async () => {
    const [first] = await json("demo");
    const [second] = await json("demo");
    expect(second.email).toBe("demo@example.com");
    const policy = { idleMs: 60_000, absoluteMs: 60_000 };
    expect(await signIn(database.db, second.email, second.password, policy)).not.toBeNull();
    expect(await signIn(database.db, first.email, first.password, policy)).toBeNull();
    const user = await database.db.user.findUniqueOrThrow({ where: { email: "demo@example.com" } });
    expect(user).toMatchObject({ role: "owner", accountId: second.account });
    // So can its operator.
    expect(second.operator_email).toBe("operator@example.com");
    expect(await signIn(database.db, second.operator_email, second.operator_password, policy)).not.toBeNull();
    expect(await signIn(database.db, first.operator_email, first.operator_password, policy)).toBeNull();
    expect(
      (await database.db.user.findUniqueOrThrow({ where: { email: "operator@example.com" } })).role,
    ).toBe("operator");
  });

  it("when an account's first person is created without a role, then they are its owner, and the next one a member", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "fresh");
    const create = (email: string) =>
      json(
        "users",
        "create",
        "--account",
        accountId,
        "--email",
        email,
        "--password",
        "a password for the cli",
      );
    expect((await create("first@example.com"))[0]).toMatchObject({ role: "owner" });
    expect((await create("second@example.com"))[0]).toMatchObject({ role: "member" });
  });

  it("when users are created, listed and disabled, then the hash is Argon2id, never printed, and a disabled user cannot sign in", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "people");
    const password = "a password for the cli";
    const [created] = await json(
      "users",
      "create",
      "--account",
      accountId,
      "--email",
      "Ada@Example.com",
      "--password",
      password,
      "--role",
      "owner",
    );
    expect(created).toMatchObject({ email: "ada@example.com", role: "owner", accountId });
    const stored = await database.db.user.findUniqueOrThrow({ where: { email: "ada@example.com" } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    const listed = (await run("users", "list", "--account", accountId)).join("\n");
    expect(listed).toContain("ada@example.com  owner  active");
    expect(listed).not.toContain(stored.passwordHash);
    await expect(
      run("users", "create", "--account", accountId, "--email", "ada@example.com", "--password", password),
    ).rejects.toThrow(/exists already/);
    await expect(
      run("users", "create", "--account", accountId, "--email", "b@example.com", "--password", "short"),
    ).rejects.toThrow(/at least 10 characters/);
    for (const [weak, why] of [
      ["aaaaaaaaaa", /more than one character/],
      ["Password123", /most common/],
      ["qwertyuiop", /most common/],
    ] as const)
      await expect(
        run("users", "create", "--account", accountId, "--email", "w@example.com", "--password", weak),
      ).rejects.toThrow(why);
    await expect(
      run(
        "users",
        "create",
        "--account",
        accountId,
        "--email",
        "c@example.com",
        "--password",
        password,
        "--role",
        "admin",
      ),
    ).rejects.toThrow(UsageError);
    const policy = { idleMs: 60_000, absoluteMs: 60_000 };
    expect(await signIn(database.db, "ada@example.com", password, policy)).not.toBeNull();
    await run("users", "disable", "ADA@example.com");
    expect(await signIn(database.db, "ada@example.com", password, policy)).toBeNull();
    expect(await database.db.consoleSession.count({ where: { userId: stored.id } })).toBe(0);
    await expect(run("users", "disable", "nobody@example.com")).rejects.toThrow(/no user/);
  });

  it("when models are listed and a status is set, then the listing shows it and only a known model can be changed", async () => {
    await seedCatalogue(database.db, await loadCatalogue());
    expect((await run("models", "list")).find((l) => l.startsWith("acme/pixel-hq "))).toMatch(
      /acme\/pixel-hq {2}active {2}image {2}builtin {2}5\/image/,
    );
    await run("models", "set-status", "acme/pixel-hq", "deprecated");
    expect((await database.db.model.findUniqueOrThrow({ where: { id: "acme/pixel-hq" } })).status).toBe(
      "deprecated",
    );
    await expect(run("models", "set-status", "acme/none", "active")).rejects.toThrow(/no model/);
    await expect(run("models", "set-status", "acme/pixel-hq", "Not A Status")).rejects.toThrow(/usage/);
    await expect(run("models", "import", "--id", "x/y")).rejects.toThrow(/--cog/);
  });

  it("when a model is imported, then every option a kind declares is a flag, checked as the API checks it, and named in a refusal", async () => {
    for (const importer of IMPORTERS) {
      const fields = Object.keys(importBody(importer).shape);
      const help = USAGE.slice(USAGE.indexOf(`models import --${importer.kind} `));
      for (const field of fields) {
        const flag =
          field === Object.keys(importer.options.shape)[0]
            ? importer.kind
            : field === "tokens_per_unit"
              ? "price"
              : field.replaceAll("_", "-") + (importer.secrets?.includes(field) ? "-env" : "");
        expect(help).toContain(`--${flag}`);
      }
    }
    const cog = ["models", "import", "--cog", "http://gpu-9:5000", "--id", "ops/x"];
    await expect(run(...cog)).rejects.toThrow(/^--price: /);
    await expect(run(...cog, "--price=-1")).rejects.toThrow(/^--price: /);
    await expect(run(...cog, "--price", "1", "--category", "smell")).rejects.toThrow(/^--category: /);
    await expect(
      run(
        "models",
        "import",
        "--openai",
        "http://gpu-9:8000",
        "--model",
        "m",
        "--api",
        "text",
        "--id",
        "o/x",
        "--price",
        "1",
      ),
    ).rejects.toThrow(/^--api: /);
    await expect(run(...cog, "--price", "1", "--like", "acme/none")).rejects.toThrow(/no model acme\/none/);
    expect(await database.db.model.count({ where: { id: "ops/x" } })).toBe(0);
  });

  it.each([
    [["keys", "create", "--account", "acct_nope", "--mode", "live"], /no account/],
    [["keys", "create", "--mode", "live"], /--account is required/],
    [["keys", "create", "--account", "x", "--mode", "prod"], /./],
    [["tokens", "grant", "--account", "acct_x", "--amount", "-5"], /./],
    [["accounts", "create", "--name", "x", "--tokens", "1.5"], /positive integer/],
    [["keys", "revoke", "key_unknown"], /no key/],
    [["frobnicate"], /unknown command/],
  ])("when the command is %p, then it is a usage error and changes nothing", async (argv, message) => {
    const before = await database.db.account.count();
    await expect(run(...(argv as string[]))).rejects.toThrow(message);
    await expect(run(...(argv as string[]))).rejects.toBeInstanceOf(UsageError);
    expect(await database.db.account.count()).toBe(before);
  });

  it("when operators change things with the CLI, then each change is audited with the CLI's actor, before, after and the reason (the command's name by default)", async () => {
    await seedCatalogue(database.db, await loadCatalogue());
    const [{ id: accountId }] = await json(
      "accounts",
      "create",
      "--name",
      "audited",
      "--tokens",
      "10",
      "--reason",
      "pilot",
    );
    await run("tokens", "grant", "--account", accountId, "--amount", "5", "--reason", "invoice 9");
    await run("accounts", "set-limits", accountId, "--weight", "2");
    const [{ id: keyId }] = await json("keys", "create", "--account", accountId, "--mode", "test");
    await run("keys", "revoke", keyId, "--reason", "leaked");
    await run(
      "users",
      "create",
      "--account",
      accountId,
      "--email",
      "cli@audited.example",
      "--password",
      "a long enough password",
    );
    await run("users", "disable", "cli@audited.example");
    await run("models", "set-status", "acme/echo", "deprecated", "--reason", "sunset");
    await run("models", "set-queue-cap", "acme/echo", "5");
    const entries = await database.db.auditEntry.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const ours = entries.filter((e) => e.accountId === accountId || e.targetId === "acme/echo");
    expect(ours.map((e) => [e.action, e.reason])).toEqual([
      ["account.create", "pilot"],
      ["tokens.grant", "invoice 9"],
      ["account.scheduling", "svc accounts set-limits"],
      ["key.create", "svc keys create"],
      ["key.revoke", "leaked"],
      ["person.create", "svc users create"],
      ["person.update", "svc users disable"],
      ["model.update", "sunset"],
      ["model.update", "svc models set-queue-cap"],
    ]);
    for (const e of ours) expect(e.actorEmail).toMatch(/^cli:.+@.+$/);
    expect(ours.find((e) => e.action === "tokens.grant")).toMatchObject({
      before: { balance: 10, reserved: 0 },
      after: { balance: 15, amount: 5 },
    });
    // Never a password in the audit log.
    expect(JSON.stringify(ours)).not.toContain("a long enough password");
  });

  it("when weights are published and unpublished, then the listing shows it and each change is audited; unknown weights are refused", async () => {
    const [{ id: accountId }] = await json("accounts", "create", "--name", "lora studio");
    const weights = await database.db.weights.create({
      data: {
        id: "wts_cli_published",
        accountId,
        mode: "live",
        name: "house style",
        size: 10,
        sha256: "c".repeat(64),
        tensorCount: 2,
        layers: [],
        tensors: [],
        baseHints: [],
        origin: "upload",
      },
    });
    await run("weights", "publish", weights.id, "--reason", "house style for all");
    expect(await json("weights", "list", "--published")).toEqual([
      expect.objectContaining({ id: weights.id, account_id: accountId, published: true }),
    ]);
    await run("weights", "unpublish", weights.id);
    expect(await json("weights", "list", "--published")).toEqual([]);
    expect((await run("weights", "list", "--account", accountId))[0]).toContain(weights.id);
    const audited = await database.db.auditEntry.findMany({
      where: { targetId: weights.id },
      orderBy: { createdAt: "asc" },
    });
    expect(audited.map((a) => [a.action, a.reason])).toEqual([
      ["weights.publish", "house style for all"],
      ["weights.unpublish", "svc weights unpublish"],
    ]);
    await expect(run("weights", "publish", "wts_nothing")).rejects.toThrow(/no weights wts_nothing/);
    await expect(run("weights", "publish", "acct_x")).rejects.toThrow(/usage: weights publish/);
  });

  it("when a grant would pass what a balance holds, then the CLI refuses it and nothing moves", async () => {
    const [{ id }] = await json("accounts", "create", "--name", "full", "--tokens", "2147483647");
    await expect(run("tokens", "grant", "--account", id, "--amount", "1")).rejects.toThrow(/2147483647/);
    await expect(run("accounts", "create", "--name", "x", "--tokens", "2147483648")).rejects.toThrow(
      UsageError,
    );
    expect((await ledgerTotals(database.db, id)).cached).toEqual({ balance: 2147483647, reserved: 0 });
  });

  it("when a model's servers are set, then the runner has them and their concurrency, audited; a built-in model, a metadata address or a bad URL is refused", async () => {
    await seedCatalogue(database.db, await loadCatalogue());
    await seedCatalogue(database.db, [
      {
        ...(await loadCatalogue()).find((m) => m.id === "acme/pixel-hq")!,
        id: "ops/served",
        runner: { kind: "cog", servers: ["http://gpu-0:5000"], output: "image" } as never,
      },
    ]);
    const [printed] = await json(
      "models",
      "set-servers",
      "ops/served",
      "http://gpu-1:5000",
      "http://gpu-2:5000",
      "--concurrency",
      "2",
      "--reason",
      "two more GPUs",
    );
    expect(printed).toEqual({
      id: "ops/served",
      servers: ["http://gpu-1:5000", "http://gpu-2:5000"],
      concurrency: 2,
    });
    const model = await database.db.model.findUniqueOrThrow({ where: { id: "ops/served" } });
    expect(model.runner).toMatchObject({
      servers: ["http://gpu-1:5000", "http://gpu-2:5000"],
      concurrency: 2,
    });
    const [audited] = await database.db.auditEntry.findMany({
      where: { targetId: "ops/served" },
      orderBy: { createdAt: "desc" },
    });
    expect(audited).toMatchObject({ action: "model.update", reason: "two more GPUs" });
    await expect(run("models", "set-servers", "acme/pixel-hq", "http://gpu-1:5000")).rejects.toThrow(
      /no servers/,
    );
    await expect(run("models", "set-servers", "ops/served", "http://169.254.169.254/")).rejects.toThrow(
      /metadata/,
    );
    await expect(run("models", "set-servers", "ops/served", "not a url")).rejects.toThrow(UsageError);
    await expect(run("models", "set-servers", "ops/served")).rejects.toThrow(/usage/);
    expect((await database.db.model.findUniqueOrThrow({ where: { id: "ops/served" } })).runner).toMatchObject(
      {
        servers: ["http://gpu-1:5000", "http://gpu-2:5000"],
      },
    );
  });

  it("when a model is imported --like another, then its server is not contacted, and a host not known here is no refusal", async () => {
    await seedCatalogue(database.db, await loadCatalogue());
    const liked = ["models", "import", "--cog", "http://gpu-unknown.invalid:5000", "--id", "ops/liked"];
    await run(...liked, "--like", "acme/pixel-hq", "--price", "5");
    const model = await database.db.model.findUniqueOrThrow({ where: { id: "ops/liked" } });
    expect(model.runner).toMatchObject({ kind: "cog", servers: ["http://gpu-unknown.invalid:5000"] });
    expect(model.description).not.toContain("gpu-unknown");
    await expect(run(...liked, "--like", "acme/pixel-hq", "--price", "5")).rejects.toThrow(/exists already/);
  });

  it("when the Cog upload URL is asked for, then it is the callback address's, with the installation's token; without one of them, the command says which", async () => {
    const secretsKey = Buffer.alloc(32, 7);
    const lines: string[] = [];
    const settings = { API_KEYS_PER_MODE_MAX: 3, secretsKey };
    process.env.COG_CALLBACK_URL = "http://workers.internal:3100/";
    try {
      await runCommand(database.db, ["cog", "upload-url"], (l) => lines.push(l), settings);
      expect(lines).toEqual([`http://workers.internal:3100/cog/uploads/${cogUploadToken(secretsKey)}/`]);
      await expect(
        runCommand(database.db, ["cog", "upload-url"], () => {}, { API_KEYS_PER_MODE_MAX: 3 }),
      ).rejects.toThrow(/SECRETS_KEY/);
      delete process.env.COG_CALLBACK_URL;
      await expect(runCommand(database.db, ["cog", "upload-url"], () => {}, settings)).rejects.toThrow(
        /COG_CALLBACK_URL/,
      );
    } finally {
      delete process.env.COG_CALLBACK_URL;
    }
  });
});
