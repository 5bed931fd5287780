import { ApiError } from "@svc/core";
import { keyRefusal, queueFullRefusal } from "./admission.js";

// Whether a run may be created, before anything moves: the rules that need no I/O.
describe("run admission", () => {
  it("when a key limited to some models asks for another, then MODEL_NOT_ALLOWED names what it may run", () => {
    const refused = keyRefusal("acme/video", { keyId: "key_1", allowedModels: ["acme/pixel"] });
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "MODEL_NOT_ALLOWED" });
    expect(refused!.message).toContain("acme/pixel");
  });

  it("when no key is named (a console session), then the run is refused as unattributed", () => {
    expect(keyRefusal("acme/pixel", { keyId: null })).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("when the key may run the model, then nothing is refused", () => {
    expect(keyRefusal("acme/pixel", { keyId: "key_1", allowedModels: ["acme/pixel"] })).toBeNull();
    expect(keyRefusal("acme/pixel", { keyId: "key_1", allowedModels: null })).toBeNull();
  });

  it("when a model's queue holds its cap, then 429 MODEL_QUEUE_FULL says when one place should free", () => {
    const figures = { queueLength: 10, runTimeP50Ms: 8_000, capacity: 2 };
    const refused = queueFullRefusal("acme/slow", 10, figures);
    expect(refused).toMatchObject({ code: "MODEL_QUEUE_FULL", headers: { "Retry-After": "4" } });
    expect(queueFullRefusal("acme/slow", 11, figures)).toBeNull();
  });

  it("when nothing has run yet, then Retry-After is at least a second", () => {
    const refused = queueFullRefusal("acme/slow", 1, { queueLength: 1, runTimeP50Ms: null, capacity: null });
    expect(refused).toMatchObject({ headers: { "Retry-After": "1" } });
  });
});
