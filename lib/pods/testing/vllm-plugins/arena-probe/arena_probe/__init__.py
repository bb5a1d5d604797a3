import getpass
import os


def register():
    # vLLM calls register() in every process it starts, maybe more than once
    if getattr(register, "done", False):
        return
    register.done = True
    print(f"arena_probe: registered as {getpass.getuser()} (uid {os.getuid()})", flush=True)
