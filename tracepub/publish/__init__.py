"""Sign-off and upload: the manifest signature, the publish gate and the Hub."""
