"""An MJCF document that uses the reader's features beyond MuJoCo's humanoid (radian angles,
``eulerseq``, every orientation attribute, ball and slide joints, ``ref``, springs, explicit
inertials, geom ``mass`` and ``density``, motors), shared by the MJCF tests."""

SINK = """<mujoco model="sink">
  <compiler angle="radian" eulerseq="zyX"/>
  <default>
    <joint damping="0.3" armature="0.02"/>
    <geom density="800"/>
    <default class="limb">
      <geom type="capsule" size="0.04"/>
      <joint stiffness="2" springref="0.1"/>
    </default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="base" pos="0 0 1" euler="0.1 0.2 0.3">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.15 0.05"/>
      <geom type="ellipsoid" size="0.05 0.06 0.07" pos="0 0 0.1" axisangle="1 1 0 0.5"/>
      <body name="arm" pos="0.2 0 0" childclass="limb" quat="0.9 0.1 0.2 0.3">
        <joint name="shoulder" type="ball" pos="0.01 0 0" damping="0.1" armature="0"
               stiffness="0"/>
        <geom fromto="0 0 0 0.3 0.05 0"/>
        <body name="forearm" pos="0.3 0.05 0" xyaxes="0 1 0 -1 0 0.2">
          <joint name="elbow" axis="0 1 1" pos="0 0 0.02" range="-1 1" ref="0.2"/>
          <joint name="twist" axis="1 0 0"/>
          <joint name="slide" type="slide" axis="1 0 0.5" ref="0.05"/>
          <geom type="cylinder" fromto="0 0 0 0.25 0 0" size="0.03"/>
          <geom type="sphere" size="0.05" pos="0.25 0 0" mass="0.3"/>
          <body name="hand" pos="0.3 0 0" zaxis="0 1 1">
            <inertial pos="0.01 0.02 0.03" mass="0.2"
                      fullinertia="0.002 0.003 0.004 0.0001 0.0002 0.0003"/>
            <joint name="wrist" axis="0 0 1"/>
          </body>
        </body>
      </body>
      <body name="leg" pos="0 0 -0.2">
        <inertial pos="0 0 -0.1" quat="1 0.2 0 0" mass="1.5" diaginertia="0.01 0.02 0.025"/>
        <joint name="hip" axis="1 0 0" armature="0.05"/>
        <geom type="capsule" size="0.03 0.1" pos="0 0 -0.1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m_elbow" joint="elbow" gear="50" ctrlrange="-1 1"/>
    <motor joint="wrist" gear="2" forcerange="-3 3"/>
  </actuator>
</mujoco>
"""
