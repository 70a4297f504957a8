"""Completions and embeddings against a real server, plain and streamed, with the same errors as the
TypeScript SDK (parity with ``client.inference`` there)."""

from __future__ import annotations

import math

from svc_client import BadRequestError, NotFoundError, PermissionDeniedError

from tests.support.fixtures import ServerTestCase, unique_name


class InferenceTest(ServerTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        from svc_client import Client

        admin = Client(cls.base_url, api_key=cls.admin_key)
        admin.models.launch("echo", model_uid="writer")
        admin.models.launch("hash-embedding", model_uid="embedder", model_type="embedding")

    def setUp(self) -> None:
        super().setUp()
        self.client = self.admin()

    def test_completion(self) -> None:
        completion = self.client.completions.create("writer", "Once upon a time", max_tokens=64)
        self.assertEqual(completion["object"], "text_completion")
        self.assertEqual(completion["model"], "writer")
        self.assertIsInstance(completion["choices"][0]["text"], str)

    def test_completion_stream_yields_the_same_text(self) -> None:
        whole = self.client.completions.create("writer", "Once upon a time")["choices"][0]["text"]
        streamed = "".join(chunk["choices"][0]["text"] for chunk in self.client.completions.stream("writer", "Once upon a time"))
        self.assertEqual(streamed, whole)

    def test_embeddings_are_unit_vectors_in_input_order(self) -> None:
        answer = self.client.embeddings.create("embedder", ["alpha", "beta"])
        self.assertEqual([item["index"] for item in answer["data"]], [0, 1])
        for item in answer["data"]:
            self.assertEqual(len(item["embedding"]), 64)
            self.assertAlmostEqual(math.sqrt(sum(x * x for x in item["embedding"])), 1.0, places=6)
        single = self.client.embeddings.create("embedder", "alpha")["data"][0]["embedding"]
        self.assertEqual(single, answer["data"][0]["embedding"])

    def test_errors_are_the_sdk_classes(self) -> None:
        with self.assertRaises(NotFoundError) as missing:
            self.client.completions.create(unique_name("nope-"), "x")
        self.assertEqual(missing.exception.code, "model_not_found")
        with self.assertRaises(BadRequestError) as unsupported:
            self.client.embeddings.create("writer", "x")
        self.assertEqual(unsupported.exception.code, "model_ability_unsupported")
        restricted = self.admin().keys.create(model_permissions=[{"permission_type": "model_id", "permission_value": "embedder"}])
        from svc_client import Client

        with self.assertRaises(PermissionDeniedError) as denied:
            Client(self.base_url, api_key=restricted["key"]).completions.create("writer", "x")
        self.assertEqual(denied.exception.code, "model_access_denied")
