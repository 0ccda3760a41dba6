"""An agent that never stops on its own: it asks the model again and again, errors included."""

import contextlib
import json
import os
import urllib.error
import urllib.request

body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode()
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
while True:
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
    # the harness's ceiling answers 400; ask again regardless
    with contextlib.suppress(urllib.error.HTTPError):
        urllib.request.urlopen(request).read()
