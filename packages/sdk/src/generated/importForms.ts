// Generated from the API's OpenAPI document by `pnpm sdk:types`: do not edit.
// apps/api/src/openapi/sdkTypes.test.ts fails when it differs from what the routes generate.
/* eslint-disable */

/** A model server kind's import, as the API declares it: where it posts, and its body's schema. */
export interface ImportForm {
  path: string;
  summary: string;
  schema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties?: boolean;
  };
  example: Record<string, unknown>;
}

export const IMPORT_FORMS: ImportForm[] = [
  {
    "path": "/operator/models/import",
    "summary": "Import a model served by a Cog server: its input schema from the server's /openapi.json",
    "schema": {
      "type": "object",
      "properties": {
        "cog_url": {
          "type": "string",
          "maxLength": 2048,
          "format": "uri",
          "description": "Cog server URL",
          "examples": [
            "http://gpu-0:5000"
          ]
        },
        "category": {
          "type": "string",
          "enum": [
            "image",
            "video",
            "audio"
          ],
          "default": "image",
          "description": "What the model makes"
        },
        "unit": {
          "type": "string",
          "minLength": 1,
          "maxLength": 40,
          "description": "What a unit of its price is (default: image for images, else run)"
        },
        "units_from": {
          "type": "string",
          "minLength": 1,
          "maxLength": 100,
          "description": "The input field that counts units (default for images: num_outputs)"
        },
        "like": {
          "type": "string",
          "pattern": "^[a-z0-9][a-z0-9._-]*(\\/[a-z0-9][a-z0-9._-]*)+$",
          "description": "Front it with this model's public input schema (the server is not asked)"
        },
        "input_map": {
          "type": "object",
          "properties": {
            "rename": {
              "type": "object",
              "additionalProperties": {
                "type": "string"
              },
              "default": {}
            },
            "expand": {
              "type": "object",
              "additionalProperties": {
                "type": "object",
                "additionalProperties": {
                  "type": "object",
                  "additionalProperties": {}
                }
              },
              "default": {}
            }
          },
          "default": {
            "rename": {},
            "expand": {}
          },
          "additionalProperties": false,
          "description": "How that public input becomes the model's: { rename, expand }"
        },
        "predictions": {
          "type": "string",
          "enum": [
            "sync",
            "async"
          ],
          "default": "sync",
          "description": "How a prediction's end comes back: sync (on its request, the fastest) or async (by webhook; a run taken over after a worker died re-attaches instead of starting again, for long predictions)"
        },
        "id": {
          "type": "string",
          "pattern": "^[a-z0-9][a-z0-9._-]*(\\/[a-z0-9][a-z0-9._-]*)+$",
          "description": "The model's id in the catalogue",
          "examples": [
            "you/sdxl"
          ]
        },
        "name": {
          "type": "string",
          "minLength": 1,
          "maxLength": 200,
          "description": "Its name (default: the id)"
        },
        "description": {
          "type": "string",
          "minLength": 1,
          "maxLength": 2000,
          "description": "Its public description (never the server's address)"
        },
        "tokens_per_unit": {
          "type": "integer",
          "minimum": 0,
          "maximum": 1000000,
          "description": "Its price: tokens per image, second or run"
        },
        "status": {
          "type": "string",
          "minLength": 1,
          "maxLength": 40,
          "description": "active (the default) to run; any other status keeps it from running"
        },
        "replace": {
          "type": "boolean",
          "default": false,
          "description": "Replace a model of this id (refused otherwise)"
        },
        "reason": {
          "type": "string",
          "minLength": 1,
          "maxLength": 500
        }
      },
      "required": [
        "cog_url",
        "id",
        "tokens_per_unit",
        "reason"
      ],
      "additionalProperties": false
    },
    "example": {
      "cog_url": "http://gpu-0:5000",
      "id": "you/sdxl",
      "category": "image",
      "tokens_per_unit": 5,
      "reason": "new model for the spring launch"
    }
  },
  {
    "path": "/operator/models/import-openai",
    "summary": "Import a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI)",
    "schema": {
      "type": "object",
      "properties": {
        "server_url": {
          "type": "string",
          "maxLength": 2048,
          "format": "uri",
          "description": "Server URL",
          "examples": [
            "http://gpu-1:8091"
          ]
        },
        "model": {
          "type": "string",
          "minLength": 1,
          "maxLength": 300,
          "description": "The model's id at /v1/models",
          "examples": [
            "Qwen/Qwen-Image"
          ]
        },
        "api": {
          "type": "string",
          "enum": [
            "images",
            "videos",
            "speech"
          ],
          "description": "images, videos or speech"
        },
        "api_key": {
          "type": "string",
          "minLength": 1,
          "maxLength": 500,
          "description": "The servers' key (stored sealed, never shown again)",
          "writeOnly": true
        },
        "id": {
          "type": "string",
          "pattern": "^[a-z0-9][a-z0-9._-]*(\\/[a-z0-9][a-z0-9._-]*)+$",
          "description": "The model's id in the catalogue",
          "examples": [
            "you/sdxl"
          ]
        },
        "name": {
          "type": "string",
          "minLength": 1,
          "maxLength": 200,
          "description": "Its name (default: the id)"
        },
        "description": {
          "type": "string",
          "minLength": 1,
          "maxLength": 2000,
          "description": "Its public description (never the server's address)"
        },
        "tokens_per_unit": {
          "type": "integer",
          "minimum": 0,
          "maximum": 1000000,
          "description": "Its price: tokens per image, second or run"
        },
        "status": {
          "type": "string",
          "minLength": 1,
          "maxLength": 40,
          "description": "active (the default) to run; any other status keeps it from running"
        },
        "replace": {
          "type": "boolean",
          "default": false,
          "description": "Replace a model of this id (refused otherwise)"
        },
        "reason": {
          "type": "string",
          "minLength": 1,
          "maxLength": 500
        }
      },
      "required": [
        "server_url",
        "model",
        "api",
        "id",
        "tokens_per_unit",
        "reason"
      ],
      "additionalProperties": false
    },
    "example": {
      "server_url": "http://gpu-1:8091",
      "model": "Qwen/Qwen-Image",
      "api": "images",
      "id": "you/qwen-image",
      "tokens_per_unit": 4,
      "reason": "Qwen-Image on the new GPUs"
    }
  },
  {
    "path": "/operator/models/import-comfyui",
    "summary": "Import a ComfyUI workflow as a model: its input fields are its bindings",
    "schema": {
      "type": "object",
      "properties": {
        "server_url": {
          "type": "string",
          "maxLength": 2048,
          "format": "uri",
          "description": "ComfyUI server URL",
          "examples": [
            "http://gpu-2:8188"
          ]
        },
        "workflow": {
          "type": "object",
          "additionalProperties": {},
          "description": "ComfyUI's API format (node id -> { class_type, inputs }): what Export (API) saves"
        },
        "bindings": {
          "type": "array",
          "items": {
            "type": "object",
            "additionalProperties": {}
          },
          "minItems": 1,
          "maxItems": 50,
          "description": "The model's input fields, each bound to a node input: [{ field, node, input, file? }]"
        },
        "category": {
          "type": "string",
          "enum": [
            "image",
            "video",
            "audio"
          ],
          "default": "image",
          "description": "What the workflow makes"
        },
        "loras": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "node": {
                "type": "string",
                "minLength": 1,
                "maxLength": 40
              },
              "url": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100
              },
              "strength": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100
              },
              "strength_clip": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100
              }
            },
            "required": [
              "node",
              "url",
              "strength"
            ],
            "additionalProperties": false
          },
          "maxItems": 8,
          "description": "The workflow's LoRA slots: nodes that load a LoRA from a URL, [{ node, url, strength, strength_clip? }]; the model then takes a run's loras"
        },
        "id": {
          "type": "string",
          "pattern": "^[a-z0-9][a-z0-9._-]*(\\/[a-z0-9][a-z0-9._-]*)+$",
          "description": "The model's id in the catalogue",
          "examples": [
            "you/sdxl"
          ]
        },
        "name": {
          "type": "string",
          "minLength": 1,
          "maxLength": 200,
          "description": "Its name (default: the id)"
        },
        "description": {
          "type": "string",
          "minLength": 1,
          "maxLength": 2000,
          "description": "Its public description (never the server's address)"
        },
        "tokens_per_unit": {
          "type": "integer",
          "minimum": 0,
          "maximum": 1000000,
          "description": "Its price: tokens per image, second or run"
        },
        "status": {
          "type": "string",
          "minLength": 1,
          "maxLength": 40,
          "description": "active (the default) to run; any other status keeps it from running"
        },
        "replace": {
          "type": "boolean",
          "default": false,
          "description": "Replace a model of this id (refused otherwise)"
        },
        "reason": {
          "type": "string",
          "minLength": 1,
          "maxLength": 500
        }
      },
      "required": [
        "server_url",
        "workflow",
        "bindings",
        "id",
        "tokens_per_unit",
        "reason"
      ],
      "additionalProperties": false
    },
    "example": {
      "server_url": "http://gpu-2:8188",
      "workflow": {
        "6": {
          "class_type": "CLIPTextEncode",
          "inputs": {
            "text": "a photo",
            "clip": [
              "4",
              1
            ]
          }
        }
      },
      "bindings": [
        {
          "field": "prompt",
          "node": "6",
          "input": "text"
        }
      ],
      "id": "you/sd15-comfy",
      "tokens_per_unit": 2,
      "reason": "our SD 1.5 workflow"
    }
  }
];
