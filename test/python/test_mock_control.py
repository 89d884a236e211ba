"""A test suite in Python against `secrets-vault mock`, with the standard library only.

Run it from the folder that holds node_modules: python3 -m unittest test_mock_control
"""

import json
import os
import subprocess
import unittest
import urllib.error
import urllib.request

# The package's own command, started without npx in between, so that a signal reaches the mock.
COMMAND = os.environ.get("SECRETS_VAULT_MOCK_COMMAND", "node_modules/.bin/secrets-vault")

# With --seed 1 the mock makes the same ids on every start: they can be written down.
ACME_ORG_ID = "00000001-2ea8-4a0d-967f-c4f2dec2d168"
FIRST_VAULT_ID = "0000000c-613a-40f2-96f1-55af94586274"


def start_mock(*args):
    """Starts the mock and returns it with the variables of its first lines, by name."""
    mock = subprocess.Popen(
        [COMMAND, "mock", "--port", "0", *args], stdout=subprocess.PIPE, text=True
    )
    variables = {}
    for line in mock.stdout:
        name, _, value = line.rstrip("\n").partition("=")
        variables[name] = value
        if name == "SECRETS_VAULT_MOCK_CONTROL":  # the last line
            return mock, variables
    raise RuntimeError(f"the mock ended ({mock.wait()}) before printing its control URL")


def call(method, url, body=None, token=None):
    """Sends a request and returns its status and its JSON body (None when empty)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    return status, json.loads(text) if text else None


class MockControlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mock, variables = start_mock("--seed", "1")
        cls.base = variables["SECRETS_VAULT_BASE_URL"]
        cls.control = variables["SECRETS_VAULT_MOCK_CONTROL"]
        cls.owner = variables["SECRETS_VAULT_TOKEN_OWNER"]
        cls.member = variables["SECRETS_VAULT_TOKEN_MEMBER"]

    @classmethod
    def tearDownClass(cls):
        cls.mock.terminate()  # SIGTERM: the mock closes its port and exits 0
        exit_code = cls.mock.wait(timeout=10)
        cls.mock.stdout.close()
        assert exit_code == 0, f"the mock exited {exit_code}"

    def tearDown(self):
        # Every test starts from the seeded state, with the same ids.
        self.assertEqual(call("POST", f"{self.control}/reset")[0], 204)

    def test_the_seeded_ids_are_the_same_on_every_start(self):
        status, body = call("GET", f"{self.base}/v1/org", token=self.member)
        self.assertEqual(status, 200)
        self.assertEqual(body["data"]["id"], ACME_ORG_ID)

    def test_a_503_fault_is_seen_until_it_is_deleted(self):
        status, body = call(
            "POST",
            f"{self.control}/faults",
            {"method": "GET", "path": "/v1/vaults", "fault": {"kind": "status", "status": 503}},
        )
        self.assertEqual(status, 201)
        fault = body["id"]

        status, body = call("GET", f"{self.base}/v1/vaults", token=self.owner)
        self.assertEqual((status, body["errorCode"]), (503, "internal_error"))

        self.assertEqual(call("DELETE", f"{self.control}/faults/{fault}")[0], 204)
        self.assertEqual(call("GET", f"{self.base}/v1/vaults", token=self.owner)[0], 200)

    def test_an_unknown_fault_kind_is_refused(self):
        status, body = call(
            "POST", f"{self.control}/faults", {"path": "/v1/vaults", "fault": {"kind": "fire"}}
        )
        self.assertEqual(status, 400)
        self.assertIn("network-error", body["message"])

    def test_reset_brings_back_the_seeded_state_and_its_ids(self):
        status, body = call("POST", f"{self.base}/v1/vaults", {"name": "app"}, token=self.owner)
        self.assertEqual((status, body["data"]["id"]), (201, FIRST_VAULT_ID))

        self.assertEqual(call("POST", f"{self.control}/reset")[0], 204)

        # The same requests in the same order: the same ids (each request's audit entry has one).
        status, body = call("POST", f"{self.base}/v1/vaults", {"name": "app"}, token=self.owner)
        self.assertEqual((status, body["data"]["id"]), (201, FIRST_VAULT_ID))
        status, body = call("GET", f"{self.base}/v1/vaults", token=self.owner)
        self.assertEqual([vault["id"] for vault in body["data"]], [FIRST_VAULT_ID])


if __name__ == "__main__":
    unittest.main()
