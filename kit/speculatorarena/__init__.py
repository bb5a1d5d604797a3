"""SpeculatorArena's participant kit: the client (`python3 -m speculatorarena.client`, its version in
`speculatorarena.client.CLIENT_VERSION`) and the local kit (`python3 -m speculatorarena.local`, which runs the kit's
own Node)."""
