// Path parameters more than one door takes (our routes, the adapters, the console's).
import { z } from "zod";

/** A model id path parameter: it takes the rest of the path, slashes included ({modelId+}). */
export const modelId = z.string().meta({
  description: "Model id; it may contain slashes (vendor/model or vendor/family/variant)",
  example: "acme/pixel/fast",
});
