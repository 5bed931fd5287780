import preset from "../../jest.preset.js";

export default { ...preset, displayName: import.meta.dirname.split("/").slice(-2).join("/") };
