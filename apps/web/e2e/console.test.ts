import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { writeSafetensors } from "@svc/core";
import { createApiKey, grantTokens, repoPaths } from "@svc/db";
import {
  COMFY_TXT2IMG,
  freePort,
  startFakeComfyUI,
  startFakeOpenAIServer,
  startService,
  testPng,
  type TestService,
} from "@svc/testkit";
import { addUser } from "@svc/use-cases";

// The console as a person uses it: the built API (serving the built console) and worker as real
// processes, driven by Debian's Chromium. Screenshots of every page go to var/screenshots/.
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOTS = join(repoPaths.root, "var", "screenshots");
const EMAIL = "owner@example.com";
const PASSWORD = "console test password";

/** A form field's label, which may carry the required mark (" *"). */
const field = (name: string) => new RegExp(`^${name}( \\*)?$`);

describe("web console in Chromium", () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  /**
   * acme/upscale's playground (not listed: opened by its id) with `image` chosen; resolves once it
   * is uploaded (the field then holds the file's id; the chosen image is shown).
   */
  const upscaleWith = async (image: Buffer) => {
    await page.getByRole("link", { name: "Models & playground" }).click();
    await page.getByLabel("Model id").fill("acme/upscale");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("heading", { name: "Upscale x2" }).waitFor();
    await page
      .getByLabel("Choose a file for image")
      .setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: image });
    await page.waitForFunction(() =>
      /^file_/.test((document.getElementById("field-image") as HTMLInputElement | null)?.value ?? ""),
    );
  };
  let base: string;

  beforeAll(async () => {
    service = await startService({ AUTH_CACHE_TTL_MS: "0", WEBHOOK_BACKOFF_BASE_MS: "600000" });
    const { db } = service.database;
    const account = await db.account.create({
      data: { id: "acct_browsertest0000000000", name: "Browser Co" },
    });
    await grantTokens(db, account.id, 500);
    // No role given: the account's first person becomes its owner (the keys test below needs one).
    expect((await addUser(db, { accountId: account.id, email: EMAIL, password: PASSWORD })).kind).toBe(
      "created",
    );
    ({ base } = await service.startApi());
    await service.startWorker();
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  /** Creates a test key on the keys page; its dialog with the full key is left open. */
  async function createTestKey(name: string) {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel("Test (never charged)").check();
    await dialog.getByRole("button", { name: "Create" }).click();
  }
  const useKey = (key: string) =>
    fetch(`${base}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);

  it("when a person signs in, then a wrong password is refused and the right one opens the console with a safe cookie", async () => {
    await page.goto(`${base}/console/`);
    await page.waitForURL(/\/console\/login$/);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
    // The form keeps what was typed.
    expect(await page.getByLabel("Email").inputValue()).toBe(EMAIL);
    await shot("01-sign-in-refused");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: "svc_session", httpOnly: true, sameSite: "Lax", path: "/console" });
    expect(await page.evaluate(() => document.cookie)).toBe("");
    await shot("02-runs-empty");
  });

  it("when a key is created, then it is shown exactly once, works with the API, and is refused once revoked", async () => {
    await createTestKey("from the browser");
    const shown = page.getByTestId("shown-once");
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^svc_test_/);
    await shot("03-key-created");
    await page.getByRole("button", { name: "Copy key" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.reload();
    await page.getByRole("cell", { name: "from the browser", exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await useKey(key)).toBe(200);

    await page.getByRole("button", { name: "Revoke from the browser" }).click();
    await page
      .getByRole("dialog", { name: "Revoke this key?" })
      .getByRole("button", { name: "Revoke key" })
      .click();
    await page.locator("tr", { hasText: "from the browser" }).getByText("revoked").waitFor();
    expect(await useKey(key)).toBe(401);
    await shot("04-key-revoked");
  });

  it("when a key is given a model and an expiry in its form, then the table shows them, the API enforces them, and Edit limits lifts them", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByLabel("Name").fill("fast only");
    await dialog.getByLabel("Test (never charged)").check();
    const day = new Date(Date.now() + 7 * 86_400_000).toLocaleDateString("sv");
    await dialog.getByLabel("Expires (optional)").fill(day);
    await dialog.getByLabel("Models it may run (optional)").selectOption(["acme/pixel/fast"]);
    await dialog.getByRole("button", { name: "Create" }).click();
    const shown = page.getByTestId("shown-once");
    await shown.waitFor();
    const key = (await shown.textContent())!;
    await page.getByRole("button", { name: "I have stored it" }).click();
    const row = page.locator("tr", { hasText: "fast only" });
    await row.getByTestId("key-limits").filter({ hasText: "Only acme/pixel/fast" }).waitFor();
    await row.getByTestId("key-limits").filter({ hasText: "Until" }).waitFor();
    // A test key is never charged: nothing spent today or this month.
    expect(await row.getByTestId("key-spend").textContent()).toBe("0 / 0");
    await shot("04b-key-limits");
    const run = (model: string) =>
      fetch(`${base}/api/v1/models/${model}/run`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ input: { prompt: "scoped" } }),
      }).then((r) => r.status);
    expect(await run("acme/pixel-hq")).toBe(403);

    await row.getByRole("button", { name: "Edit limits of fast only" }).click();
    const edit = page.getByRole("dialog", { name: "Limits of fast only" });
    await edit.getByLabel("Models it may run (optional)").selectOption([]);
    await edit.getByLabel("Expires (optional)").fill("");
    await edit.getByRole("button", { name: "Save limits" }).click();
    await row.getByTestId("key-limits").filter({ hasText: "none" }).waitFor();
    expect(await run("acme/pixel-hq")).toBe(201);
  });

  it("when a live key is given a budget and a runs-at-once limit in its form, then the table shows them and the API refuses a run past the budget with 402", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByLabel("Name").fill("capped");
    await dialog.getByLabel("Live (charged)").check();
    // 4 tokens a day: less than one test/instant image (5).
    await dialog.getByLabel("Tokens").fill("4");
    await dialog.getByLabel("per").selectOption("day");
    await dialog.getByLabel("Runs at once (optional)").fill("2");
    await dialog.getByRole("button", { name: "Create" }).click();
    const shown = page.getByTestId("shown-once");
    await shown.waitFor();
    const key = (await shown.textContent())!;
    await page.getByRole("button", { name: "I have stored it" }).click();
    const row = page.locator("tr", { hasText: "capped" });
    await row.getByTestId("key-budget").filter({ hasText: "0 of 4 tokens a day (UTC)" }).waitFor();
    await row.getByTestId("key-limits").filter({ hasText: "2 at once" }).waitFor();
    const refused = await fetch(`${base}/api/v1/models/test/instant/run`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ input: { prompt: "over budget" } }),
    });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("KEY_BUDGET_EXCEEDED");
    await shot("04c-key-budget");

    await row.getByRole("button", { name: "Edit limits of capped" }).click();
    const edit = page.getByRole("dialog", { name: "Limits of capped" });
    expect(await edit.getByLabel("Tokens").inputValue()).toBe("4");
    await edit.getByLabel("Tokens").fill("");
    await edit.getByLabel("Runs at once (optional)").fill("");
    await edit.getByRole("button", { name: "Save limits" }).click();
    await row.getByTestId("key-limits").filter({ hasText: "none" }).waitFor();
    // Nothing was charged for the refused run.
    const stored = await service.database.db.account.findUniqueOrThrow({
      where: { id: "acct_browsertest0000000000" },
    });
    expect(stored).toMatchObject({ balance: 500, reserved: 0 });
  });

  it("when a run is started from the playground, then its image is rendered and the run is listed", async () => {
    await createTestKey("playground");
    await page.getByRole("button", { name: "I have stored it" }).click();

    await page.getByRole("link", { name: "Models & playground" }).click();
    await page.getByRole("link", { name: "test/instant" }).click();
    // Its queue: the workers' render threads are its capacity.
    const queue = page.getByRole("definition").filter({ hasText: / of \d+$/ });
    await queue.waitFor();
    expect(await page.getByText("Waiting", { exact: true }).count()).toBe(1);
    await page.getByLabel("Prompt").fill("a lighthouse at dawn");
    expect(await page.getByTestId("curl-snippet").textContent()).toContain('"prompt":"a lighthouse at dawn"');
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const image = page.getByRole("img", { name: "Output image 1" });
    await image.waitFor();
    await page.waitForFunction(
      () =>
        ((document.querySelector('img[alt="Output image 1"]') as HTMLImageElement | null)?.naturalWidth ??
          0) > 0,
    );
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await page.getByText("completed", { exact: true }).first().waitFor();
    await shot("05-playground-result");

    await page.getByRole("link", { name: "Runs", exact: true }).click();
    const row = page.locator("tbody tr").first();
    await row.getByText("completed").waitFor();
    await shot("06-runs");
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: "Timeline" }).waitFor();
    await page.getByRole("img", { name: "Output image 1" }).waitFor();
    await shot("07-run-page");
  });

  it("when a run is made through OpenAI's API, then the runs list has it and its page says how it came", async () => {
    await createTestKey("openai client");
    const shown = page.getByTestId("shown-once");
    await shown.waitFor();
    const key = (await shown.textContent())!;
    await page.getByRole("button", { name: "I have stored it" }).click();
    const res = await fetch(`${base}/openai/v1/videos`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "acme/motion/clip", prompt: "waves", seconds: "1" }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await page.goto(`${base}/console/runs`);
    await page.getByRole("link", { name: id }).click();
    await page.getByText("OpenAI's API (/openai/v1)").waitFor();
    await shot("07b-run-made-through-openai");
  });

  it("when a video is made in the playground, then Chromium plays its MP4 in the video element", async () => {
    await page.getByRole("link", { name: "Models & playground" }).click();
    await page.getByRole("link", { name: "Motion Clip" }).click();
    await page.getByLabel("Prompt").fill("a red kite over the sea");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const video = page.locator('video[aria-label="Output video"]');
    await video.waitFor();
    expect(await video.getAttribute("src")).toMatch(/-video\.mp4$/);
    // Muted media may play without a gesture; play() rejects if the file cannot be decoded.
    const played = await video.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
      await new Promise<void>((resolve, reject) => {
        v.addEventListener("error", () => reject(new Error(`media error ${v.error?.code}`)));
        const check = () => (v.currentTime > 0.5 ? resolve() : requestAnimationFrame(check));
        check();
      });
      return { width: v.videoWidth, height: v.videoHeight, duration: v.duration, error: v.error };
    });
    expect(played).toEqual({ width: 320, height: 180, duration: 3, error: null });
    await shot("07b-video-playing");
  });

  it("when a file is chosen in the playground, then it is uploaded, upscaled by acme/upscale, and shown as the run's input", async () => {
    await upscaleWith(testPng(40, 24, "a harbour at night"));
    await page.getByRole("img", { name: "Chosen image" }).waitFor();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const output = page.getByRole("img", { name: "Output image 1" });
    await output.waitFor();
    await page.waitForFunction(
      () =>
        ((document.querySelector('img[alt="Output image 1"]') as HTMLImageElement | null)?.naturalWidth ??
          0) > 0,
    );
    expect(await output.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([
      80, 48,
    ]);
    await shot("07c-upscale-playground");
    await page.getByRole("link", { name: /^run_/ }).click();
    const input = page.getByRole("img", { name: "Input image" });
    await input.waitFor();
    await page.waitForFunction(
      () =>
        ((document.querySelector('img[alt="Input image"]') as HTMLImageElement | null)?.naturalWidth ?? 0) >
        0,
    );
    expect(await input.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);
    await shot("07d-run-page-input-file");

    // A file of the wrong kind is refused with the API's reason, where the person chose it.
    await page.getByRole("link", { name: "Models & playground" }).click();
    await page.getByLabel("Model id").fill("acme/upscale");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByLabel("Choose a file for image").setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("not an image"),
    });
    await page.getByRole("alert").filter({ hasText: "not of a type the service takes" }).waitFor();
  });

  it("when a webhook endpoint's delivery fails, then its attempts are shown and it can be redelivered", async () => {
    const closed = await freePort();
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("URL (https)").fill(`https://127.0.0.1:${closed}/hooks`);
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await page
      .getByTestId("shown-once")
      .filter({ hasText: /^whsec_/ })
      .waitFor();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("link", { name: `https://127.0.0.1:${closed}/hooks` }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    const delivery = page.locator("li[data-delivery-id]").first();
    await delivery.locator("tr.bad").first().waitFor({ timeout: 30_000 });
    expect(await delivery.locator("tr.bad td").nth(4).textContent()).toMatch(/connection|tls|timeout/);
    await shot("08-webhook-failed-delivery");
    const before = await page.locator("li[data-delivery-id]").count();
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await page.waitForFunction((n) => document.querySelectorAll("li[data-delivery-id]").length > n, before);
    await page.locator("li[data-delivery-id]").first().locator("tr.bad").first().waitFor({ timeout: 30_000 });
    await shot("09-webhook-redelivered");
  });

  it("when usage is opened, then Test shows the test-run allowance and no live number, Live the balance and ledger, and signing out ends the session", async () => {
    await page.getByRole("link", { name: "Usage & balance" }).click();
    // The console opens in Test: a world without tokens.
    await page.getByTestId("stat-test runs left").waitFor();
    expect(await page.getByTestId("stat-balance").count()).toBe(0);
    expect(await page.getByRole("cell", { name: "grant" }).count()).toBe(0);
    await page.getByRole("radio", { name: "Live" }).check();
    await page.getByTestId("stat-balance").filter({ hasText: "500" }).waitFor();
    await page.getByRole("cell", { name: "grant" }).first().waitFor();
    // The owner's low-balance alert.
    const alert = page.getByRole("form", { name: "Low-balance alert" });
    await alert.getByLabel("Alert below (tokens)").fill("100");
    await alert.getByRole("button", { name: "Save alert" }).click();
    await alert.getByText("Saved.").waitFor();
    expect(
      (await service.database.db.account.findUniqueOrThrow({ where: { id: "acct_browsertest0000000000" } }))
        .lowBalanceThreshold,
    ).toBe(100);
    await shot("10-usage");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Runs", exact: true }).waitFor();
    await shot("11-phone-menu");
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/login$/);
    await page.goto(`${base}/console/keys`);
    await page.waitForURL(/\/console\/login$/);
    expect(await page.context().cookies()).toEqual([]);
  });

  it("when a member signs in, then the keys and webhooks pages say why creating and managing are missing", async () => {
    const added = await addUser(service.database.db, {
      accountId: "acct_browsertest0000000000",
      email: "member@example.com",
      password: PASSWORD,
    });
    expect(added.kind === "created" && added.user.role).toBe("member");
    await page.goto(`${base}/console/login`);
    await page.getByLabel("Email").fill("member@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Signed in (onto whichever page the sign-in came from).
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await page
      .getByRole("note")
      .filter({ hasText: "Only an owner of this account can create and revoke API keys" })
      .waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    await shot("12-member-keys");
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("note").filter({ hasText: "You are a member" }).waitFor();
    expect(await page.getByRole("button", { name: "Add endpoint" }).count()).toBe(0);
    // Nor does a member see the operator's pages, or get them by address.
    expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    await page.goto(`${base}/console/operator/accounts`);
    await page.getByRole("heading", { name: "Operators only" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/login$/);
  });

  it("when an operator grants tokens to an account, then its figures move, the ledger and the audit log show it, and the catalogue shows each model's queue", async () => {
    const { db } = service.database;
    const house = await db.account.create({ data: { id: "acct_operatorhouse000000000", name: "Operators" } });
    const made = await addUser(db, {
      accountId: house.id,
      email: "ops@example.com",
      password: PASSWORD,
      role: "operator",
    });
    expect(made.kind).toBe("created");
    await page.goto(`${base}/console/login`);
    await page.getByLabel("Email").fill("ops@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Accounts" }).click();
    const row = page.locator("tr[data-account-id='acct_browsertest0000000000']");
    await row.waitFor();
    // The operator pages stand outside the live and test worlds: no switch, no test banner.
    await page.getByText("Operator: the whole service").waitFor();
    expect(await page.getByRole("group", { name: "Data shown" }).count()).toBe(0);
    expect(await page.getByRole("note").filter({ hasText: "Test mode" }).count()).toBe(0);
    await shot("13-operator-accounts");
    await row.getByRole("link", { name: "Browser Co" }).click();
    await page.getByRole("heading", { name: "Browser Co", level: 1 }).waitFor();
    await page.getByTestId("stat-available").filter({ hasText: "500" }).waitFor();
    await page.locator("tr[data-person='owner@example.com']").waitFor();
    const adjust = page.getByRole("form", { name: "Grant or deduct tokens" });
    await adjust.getByLabel("Tokens").fill("250");
    await adjust.getByLabel("Reason").fill("invoice 7 paid");
    await adjust.getByRole("button", { name: "Record" }).click();
    await page.getByTestId("stat-available").filter({ hasText: "750" }).waitFor();
    await page.getByRole("cell", { name: "invoice 7 paid" }).waitFor();
    // A deduction past what is available is refused, and says why.
    await adjust.getByLabel("Action").selectOption("deduct");
    await adjust.getByLabel("Tokens").fill("100000");
    await adjust.getByLabel("Reason").fill("too much");
    await adjust.getByRole("button", { name: "Record" }).click();
    await page.getByText(/Only 750 tokens are available/).waitFor();
    await shot("14-operator-account");
    expect(await db.account.findUniqueOrThrow({ where: { id: "acct_browsertest0000000000" } })).toMatchObject(
      {
        balance: 750,
      },
    );

    await page.getByRole("link", { name: "Audit log" }).click();
    const entry = page.locator("tr[data-audit-action='tokens.grant']");
    await entry.getByRole("cell", { name: "ops@example.com" }).waitFor();
    expect(await entry.getByRole("cell", { name: "invoice 7 paid" }).count()).toBe(1);
    await shot("15-operator-audit");

    await page.getByRole("link", { name: "Catalogue & queues" }).click();
    const model = page.locator("tr[data-model-id='test/instant']");
    await model
      .getByTestId("model-queue")
      .filter({ hasText: /busy · \d+ waiting/ })
      .waitFor();
    await model.getByRole("button", { name: "Edit test/instant" }).click();
    const edit = page.getByRole("dialog", { name: "Edit test/instant" });
    await edit.getByLabel("Tokens per image").fill("6");
    await edit.getByLabel("Reason").fill("price review");
    await edit.getByRole("button", { name: "Save model" }).click();
    await model.filter({ hasText: "6 / image" }).waitFor();
    await shot("16-operator-catalogue");

    // The account's owner sees what the operator did, and why, in the security log.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/login$/);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Security log" }).click();
    const grant = page.locator("tr[data-audit-action='tokens.grant']");
    await grant.getByRole("cell", { name: "ops@example.com" }).waitFor();
    expect(await grant.getByRole("cell", { name: "invoice 7 paid" }).count()).toBe(1);
    // Only this account's entries: the model's price change is not the account's business.
    expect(await page.locator("tr[data-audit-action='model.update']").count()).toBe(0);
    await shot("17-security-log");
  });

  it("when an operator imports a model from an OpenAI-style server, then a refused key imports nothing, and with its key it is listed with its server, the key stored sealed", async () => {
    const server = await startFakeOpenAIServer({
      model: "Qwen/Qwen-Image",
      apiKey: "sk-console-key",
      unitMs: 20,
    });
    try {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(/\/console\/login$/);
      await page.getByLabel("Email").fill("ops@example.com");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: "Catalogue & queues" }).click();
      const form = page.getByRole("form", {
        name: "Import a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI)",
      });
      await form.getByLabel("Server URL").fill(server.url);
      await form.getByLabel(field("Model")).fill("Qwen/Qwen-Image");
      await form.getByLabel(field("API")).selectOption("images");
      await form.getByLabel(field("ID")).fill("you/qwen-image");
      await form.getByLabel("Tokens per unit").fill("3");
      await form.getByLabel("Reason").fill("new GPUs");
      // Without its key, the server refuses: nothing is imported, and the form says why.
      await form.getByRole("button", { name: "Import" }).click();
      await page
        .getByText(/could not be reached, or refused the key/)
        .first()
        .waitFor();
      await form.getByLabel(/API key/).fill("sk-console-key");
      await form.getByRole("button", { name: "Import" }).click();
      const row = page.locator("tr[data-model-id='you/qwen-image']");
      await row.filter({ hasText: "1 server × 1" }).waitFor();
      await shot("18-operator-openai-import");
      expect(await page.content()).not.toContain("sk-console-key");
      // Its key is stored sealed; the server saw it (the import listed its models with it).
      const stored = await service.database.db.model.findUniqueOrThrow({ where: { id: "you/qwen-image" } });
      expect(JSON.stringify(stored.runner)).not.toContain("sk-console-key");
      expect(stored.runner).toMatchObject({
        kind: "openai",
        servers: [server.url],
        model: "Qwen/Qwen-Image",
        api: "images",
      });
    } finally {
      await server.close();
    }
  });

  it("when an operator imports a ComfyUI workflow, then bindings that name no node are refused, and the model is listed with its server and the bound fields as its input", async () => {
    const server = await startFakeComfyUI();
    try {
      const form = page.getByRole("form", { name: "Import a ComfyUI workflow as a model" });
      await form.getByLabel("Server URL").fill(server.url);
      await form.getByLabel(field("ID")).fill("you/sd15-comfy");
      await form.getByLabel("Tokens per unit").fill("2");
      await form.getByLabel(field("Workflow")).fill(JSON.stringify(COMFY_TXT2IMG.workflow));
      await form
        .getByLabel(field("Bindings"))
        .fill(JSON.stringify([{ field: "prompt", node: "66", input: "text" }]));
      await form.getByLabel("Reason").fill("our SD 1.5 graph");
      await form.getByRole("button", { name: "Import" }).click();
      await page
        .getByText(/no node 66 in the workflow/)
        .first()
        .waitFor();
      await form.getByLabel(field("Bindings")).fill(JSON.stringify(COMFY_TXT2IMG.bindings));
      await form.getByRole("button", { name: "Import" }).click();
      const row = page.locator("tr[data-model-id='you/sd15-comfy']");
      await row.filter({ hasText: "1 server × 1" }).waitFor();
      await shot("19-operator-comfyui-import");
      const model = await service.database.db.model.findUniqueOrThrow({ where: { id: "you/sd15-comfy" } });
      expect(Object.keys((model.inputSchema as { properties: object }).properties).sort()).toEqual([
        "image_size",
        "num_images",
        "prompt",
        "seed",
        "steps",
      ]);
    } finally {
      await server.close();
    }
  });

  it("when a LoRA is uploaded on the Weights page, then its progress is shown, it is listed with what its header says, and deleting it removes it", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/login$/);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Weights" }).click();
    const f32 = (n: number) => new Uint8Array(new Float32Array(n).fill(0.25).buffer);
    const lora = writeSafetensors(
      [
        { name: "SR.lora_down.weight", dtype: "F32", shape: [4, 12, 3, 3], data: f32(4 * 108) },
        { name: "SR.lora_up.weight", dtype: "F32", shape: [3, 4, 1, 1], data: f32(12) },
      ],
      { ss_base_model_version: "rdn_x2" },
    );
    const form = page.getByRole("form", { name: "Upload weights" });
    await form.getByLabel("LoRA file (.safetensors)").setInputFiles({
      name: "brand-style.safetensors",
      mimeType: "application/octet-stream",
      buffer: Buffer.from(lora),
    });
    await form.getByLabel("Name (optional)").fill("brand style");
    await form.getByRole("button", { name: "Upload" }).click();
    const row = page.locator("tr[data-weights='brand style']");
    await row.getByRole("cell", { name: "rdn_x2" }).waitFor();
    expect(await row.textContent()).toContain("4");
    await shot("20-weights");
    // A file that is not safetensors is refused, and says why.
    await form.getByLabel("LoRA file (.safetensors)").setInputFiles({
      name: "model.ckpt",
      mimeType: "application/octet-stream",
      buffer: Buffer.from("\x80\x02ctorch._utils\n"),
    });
    await form.getByRole("button", { name: "Upload" }).click();
    await page
      .getByText(/not safetensors/)
      .first()
      .waitFor();
    // The playground of a model that takes LoRAs picks them from the weights.
    await upscaleWith(testPng(16, 16, "a harbour"));
    await page.getByRole("button", { name: "Add a LoRA" }).click();
    await page.getByLabel("Strength 1").fill("0.5");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByRole("img", { name: "Output image 1" }).waitFor();
    await page.getByText(/4 tokens charged/).waitFor();
    await shot("21-playground-lora");
    await page.getByRole("link", { name: "Weights", exact: true }).click();
    await row.getByRole("button", { name: "Delete brand style" }).click();
    await page
      .getByRole("dialog", { name: "Delete these weights?" })
      .getByRole("button", { name: "Delete weights" })
      .click();
    await row.waitFor({ state: "detached" });
    expect(await service.database.db.weights.count({ where: { name: "brand style", deletedAt: null } })).toBe(
      0,
    );
  });

  it("when a batch waits for tokens, then the Batches page shows its progress and why it waits, its results download as JSON Lines, and it can be canceled", async () => {
    const { db } = service.database;
    const { key } = (await createApiKey(db, "acct_browsertest0000000000", "live", "batch key", 100))!;
    // More echo lines than the account's tokens pay for: the batch pauses, waiting for tokens.
    const made = await fetch(`${base}/api/v1/batches`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "acme/echo",
        items: Array.from({ length: 2_000 }, (_, i) => ({
          custom_id: `e${i}`,
          input: { prompt: `line ${i}` },
        })),
      }),
    });
    expect(made.status).toBe(201);
    const { id } = ((await made.json()) as { data: { id: string } }).data;
    await page.getByRole("link", { name: "Batches" }).click();
    const row = page.locator(`tr[data-batch='${id}']`);
    await row.getByText(/paused: insufficient tokens/).waitFor();
    const progress = row.getByRole("progressbar", { name: `Progress of ${id}` });
    expect(Number(await progress.getAttribute("value"))).toBeGreaterThan(0);
    expect(await progress.getAttribute("max")).toBe("2000");
    await shot("22-batches");
    const href = await row.getByRole("link", { name: `Results of ${id}` }).getAttribute("href");
    const results = await page.request.get(`${base}${href}`);
    expect(results.headers()["content-type"]).toMatch(/application\/jsonl/);
    const lines = (await results.text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { status: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.status === "completed")).toBe(true);
    await row.getByRole("button", { name: `Cancel ${id}` }).click();
    await page
      .getByRole("dialog", { name: "Cancel this batch?" })
      .getByRole("button", { name: "Cancel batch" })
      .click();
    await row.getByRole("cell", { name: "canceled", exact: true }).waitFor();
    await shot("23-batch-canceled");
    expect(await row.getByRole("button", { name: `Cancel ${id}` }).count()).toBe(0);
  });
});
